int rt_tmp_bth(void); int rt_tmp_bth(void){return 0;}
