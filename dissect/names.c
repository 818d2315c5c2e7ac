int rt_tmp_names(void); int rt_tmp_names(void){return 0;}
