int rt_tmp_macc(void); int rt_tmp_macc(void){return 0;}
