# synthetic lackey log: instructions of 1-15 bytes in a 24 KiB code region
# (some across lines), data accesses of 1-32 bytes at any alignment in three
# regions (a hot 8 KiB, a 96 KiB stream, a 1 MiB random region), L/S/M
BEGIN {
    srand(seed); ip = 4194304; s = 0
    for (i = 0; i < n; i++) {
        len = 1 + int(rand() * 15)
        if (rand() < 0.08) ip = 4194304 + int(rand() * 24576)
        printf "I  %x,%d\n", ip, len
        ip += len
        if (ip > 4194304 + 24576) ip = 4194304
        k = int(rand() * 3)
        for (j = 0; j < k; j++) {
            r = rand(); sz = 2 ^ int(rand() * 6); if (rand() < 0.1) sz = 10
            if (r < 0.4) a = 268435456 + int(rand() * 8192)
            else if (r < 0.75) { a = 285212672 + s; s = (s + sz) % 98304 }
            else a = 301989888 + int(rand() * 1048576)
            t = rand(); op = t < 0.6 ? "L" : (t < 0.85 ? "S" : "M")
            printf " %s %x,%d\n", op, a, sz
        }
    }
}
