MemcpyHtoD,0x0000000010000000,65536
kernel-1.traceg
kernel-2.traceg
