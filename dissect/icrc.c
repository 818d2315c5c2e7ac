int rt_tmp_icrc(void); int rt_tmp_icrc(void){return 0;}
