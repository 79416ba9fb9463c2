/* bytecode.c — instruction lengths of the JVM instruction set (JVMS §6.5):
 * the fixed lengths, and those of tableswitch, lookupswitch and wide. */
#include "bytecode.h"

/* Fixed length per opcode; 0 = undefined, 0xff = variable (switches, wide). */
const uint8_t bc_fixed_len[256] = {
    /* 0x00 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x10 */ 2, 3, 2, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1,
    /* 0x20 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x30 */ 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1,
    /* 0x40 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x50 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x60 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x70 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x80 */ 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x90 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3,
    /* 0xa0 */ 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 0xff, 0xff, 1, 1, 1, 1,
    /* 0xb0 */ 1, 1, 3, 3, 3, 3, 3, 3, 3, 5, 5, 3, 2, 3, 1, 1,
    /* 0xc0 */ 3, 3, 1, 1, 0xff, 4, 3, 3, 5, 5,
};

#define J BC_JUMPS
#define R BC_RETURN
#define A BC_NEWARRAY
#define C BC_CP
const uint8_t bc_kind[256] = {
    [0x12] = C, [0x13] = C, [0x14] = C,                                         /* ldc, ldc_w, ldc2_w */
    [0x99] = J, J, J, J, J, J, J, J, J, J, J, J, J, J, J, J,                    /* if*, goto, jsr */
    [0xaa] = J, J,                                                              /* switches */
    [0xac] = R, R, R, R, R, R,                                                  /* returns */
    [0xb2] = C, C, C, C, C, C, C, C, C, C,                                      /* fields, invokes, new */
    [0xbc] = A, A | C,                                                          /* newarray, anewarray */
    [0xc0] = C, C,                                                              /* checkcast, instanceof */
    [0xc5] = A | C, J, J, J, J,                                                 /* multianewarray, ifnull … jsr_w */
};
#undef J
#undef R
#undef A
#undef C

uint32_t bc_insn_length_var(const unsigned char *code, uint32_t len, uint32_t pc)
{
    if (pc >= len)
        return 0;
    uint8_t op = code[pc];
    uint32_t n = bc_fixed_len[op];
    if (n == 0xff) {
        if (op == OP_WIDE) {
            if (pc + 1 >= len)
                return 0;
            uint8_t w = code[pc + 1];
            if (w == 0x84) /* iinc: wide iinc u2 index, s2 const */
                n = 6;
            else if ((w >= 0x15 && w <= 0x19) || (w >= 0x36 && w <= 0x3a) || w == OP_RET)
                n = 4;
            else
                return 0;
        } else {
            uint32_t base = pc + 1 + bc_switch_pad(pc); /* default, then low/high or npairs */
            if ((uint64_t)base + (op == OP_TABLESWITCH ? 12 : 8) > len)
                return 0;
            if (op == OP_TABLESWITCH) {
                int32_t lo = bc_s4(code + base + 4), hi = bc_s4(code + base + 8);
                if (lo > hi)
                    return 0;
                uint64_t total = (uint64_t)(base - pc) + 12 + 4 * ((uint64_t)hi - (uint64_t)lo + 1);
                if (total > len - pc)
                    return 0;
                n = (uint32_t)total;
            } else {
                int32_t npairs = bc_s4(code + base + 4);
                if (npairs < 0)
                    return 0;
                uint64_t total = (uint64_t)(base - pc) + 8 + 8 * (uint64_t)npairs;
                if (total > len - pc)
                    return 0;
                n = (uint32_t)total;
            }
        }
    }
    if (n == 0 || (uint64_t)pc + n > len)
        return 0;
    return n;
}
