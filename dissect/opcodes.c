int rt_tmp_opcodes(void); int rt_tmp_opcodes(void){return 0;}
