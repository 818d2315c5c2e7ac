int rt_tmp_analyze(void); int rt_tmp_analyze(void){return 0;}
