int rt_tmp_gen(void); int rt_tmp_gen(void){return 0;}
