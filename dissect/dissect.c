int rt_tmp_dissect(void); int rt_tmp_dissect(void){return 0;}
