/* bytecode.h — the JVM instruction set as the rewriter needs it: each
 * opcode's length (fixed, or computed for tableswitch, lookupswitch and wide),
 * which opcodes branch and how far their offsets reach, and how to invert a
 * conditional branch. Pure tables; no allocation. */
#ifndef BYTECODE_H
#define BYTECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    OP_NOP = 0x00, OP_ICONST_0 = 0x03, OP_BIPUSH = 0x10, OP_SIPUSH = 0x11, OP_LDC = 0x12, OP_LDC_W = 0x13,
    OP_LDC2_W = 0x14, OP_ALOAD = 0x19, OP_ALOAD_0 = 0x2a, OP_POP = 0x57, OP_DUP = 0x59, OP_DUP_X1 = 0x5a,
    OP_IFEQ = 0x99, OP_IF_ACMPNE = 0xa6, OP_GOTO = 0xa7, OP_JSR = 0xa8, OP_RET = 0xa9,
    OP_TABLESWITCH = 0xaa, OP_LOOKUPSWITCH = 0xab, OP_IRETURN = 0xac, OP_RETURN = 0xb1,
    OP_INVOKESTATIC = 0xb8, OP_NEW = 0xbb, OP_NEWARRAY = 0xbc, OP_ANEWARRAY = 0xbd, OP_ARRAYLENGTH = 0xbe, OP_ATHROW = 0xbf,
    OP_MONITORENTER = 0xc2, OP_WIDE = 0xc4, OP_MULTIANEWARRAY = 0xc5, OP_IFNULL = 0xc6, OP_IFNONNULL = 0xc7, OP_GOTO_W = 0xc8,
    OP_JSR_W = 0xc9,
};

extern const uint8_t bc_fixed_len[256]; /* 0 = undefined, 0xff = variable */

/* What the rewriter needs to know of an opcode, as bits of bc_kind[op]. */
enum {
    BC_JUMPS = 1u << 0,    /* a branch (16 or 32 bit) or a switch: has targets */
    BC_RETURN = 1u << 1,   /* ireturn … return */
    BC_NEWARRAY = 1u << 2, /* newarray, anewarray, multianewarray */
    BC_CP = 1u << 3,       /* refers to a constant (u1 for ldc, u2 otherwise) */
};
extern const uint8_t bc_kind[256];
uint32_t bc_insn_length_var(const unsigned char *code, uint32_t len, uint32_t pc);

/* Length in bytes of the instruction at code[pc], where code has len bytes.
 * Returns 0 if the opcode is undefined or the instruction runs past len. */
static inline uint32_t bc_insn_length(const unsigned char *code, uint32_t len, uint32_t pc)
{
    if (pc >= len)
        return 0;
    uint32_t n = bc_fixed_len[code[pc]];
    if (n == 0xff)
        return bc_insn_length_var(code, len, pc);
    return n && n <= len - pc ? n : 0;
}

/* if*, ifnull, ifnonnull, goto, jsr: a signed 16-bit offset at pc+1. */
static inline bool bc_is_branch16(uint8_t op)
{
    return (op >= OP_IFEQ && op <= OP_JSR) || op == OP_IFNULL || op == OP_IFNONNULL;
}
static inline bool bc_is_branch32(uint8_t op) { return op == OP_GOTO_W || op == OP_JSR_W; }
static inline bool bc_is_conditional(uint8_t op)
{
    return (op >= OP_IFEQ && op <= OP_IF_ACMPNE) || op == OP_IFNULL || op == OP_IFNONNULL;
}
static inline bool bc_is_return(uint8_t op) { return op >= OP_IRETURN && op <= OP_RETURN; }
static inline bool bc_is_newarray(uint8_t op)
{
    return op == OP_NEWARRAY || op == OP_ANEWARRAY || op == OP_MULTIANEWARRAY;
}

/* The conditional branch taken exactly when op is not (ifeq <-> ifne …). */
static inline uint8_t bc_invert(uint8_t op)
{
    if (op == OP_IFNULL || op == OP_IFNONNULL)
        return (uint8_t)(op ^ 1);
    return (uint8_t)(((op - OP_IFEQ) ^ 1) + OP_IFEQ);
}

/* Padding bytes after a switch opcode at pc so its operands are 4-aligned. */
static inline uint32_t bc_switch_pad(uint32_t pc) { return (4 - ((pc + 1) & 3)) & 3; }

static inline int32_t bc_s2(const unsigned char *p) { return (int16_t)(uint16_t)((p[0] << 8) | p[1]); }
static inline int32_t bc_s4(const unsigned char *p)
{
    return (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]);
}
static inline uint16_t bc_u2(const unsigned char *p) { return (uint16_t)((p[0] << 8) | p[1]); }

#endif
