/* dwarf_cfi.c — see dwarf_cfi.h. Owns the parse of .eh_frame: the CIE and FDE
 * records (LSB "Exception Frame" format: augmentations z, P, L, R, S; pointer
 * encodings absptr/udata/sdata 2-4-8/uleb/sleb, pcrel and datarel, indirect
 * only where the value is skipped), the execution of each FDE's CFA program
 * (the DW_CFA ops compilers emit) into rows, and the lookup table.
 *
 * Building the table: every FDE header is read first, the FDEs are sorted by
 * start address (an FDE overlapping an earlier one is skipped), then each
 * program is run and its rows appended in order; an FDE's end gets a "no rule"
 * row unless the next FDE starts there. Neighbouring rows with the same rule are
 * merged. Row addresses are 32-bit offsets from the lowest FDE start (a shared
 * object's code spans far less than 4 GiB). A lookup narrows the rows to those
 * of the pc's 4 KiB page through an index (a few rows, not log2 of all of
 * them), then searches them without branches (a binary search's branches
 * mispredict). Anything malformed ends that FDE's rows with "no rule" from the
 * point reached; nothing is read outside the section, and arithmetic on values
 * read wraps (cfi_scaled) instead of overflowing. */
#include "dwarf_cfi.h"

#include <stdlib.h>
#include <string.h>

#include "../common/file_map.h"
#include "elf_image.h"

#define CFI_NONE 5                     /* a row kind of our own: no rule here (dwarf_cfi_find says false) */
#define CFI_ROW_FP_SAME INT16_MIN      /* fp_off of a row: rbp unchanged */
#define CFI_STACK_DEPTH 16             /* remember_state nesting */
#define CFI_DW_RBP 6
#define CFI_DW_RSP 7
#define CFI_DW_RA 16

typedef struct cfi_row {
    uint32_t pc;       /* offset from dwarf_cfi.base */
    int32_t cfa_off;
    int16_t fp_off;    /* CFI_ROW_FP_SAME, or offset from the CFA */
    uint8_t kind;      /* CFI_REG_SP .. CFI_SIGNAL, CFI_NONE */
    uint8_t pad;
} cfi_row;

#define CFI_PAGE_SHIFT 12   /* the lookup index has one entry per 4 KiB of code */

struct dwarf_cfi {
    cfi_row *rows;
    size_t n, cap;
    uint64_t base;
    uint32_t *page;    /* page[p]: the last row starting at or before offset p << CFI_PAGE_SHIFT */
    size_t npages;     /* entries of page: one past the page of the last row, plus one */
    size_t fdes, skipped;
};

/* A bounded reader over [p, end); any read past end sets bad and yields 0. */
typedef struct cfi_cursor {
    const uint8_t *p, *end;
    bool bad;
} cfi_cursor;

/* Where .eh_frame lies: its bytes and its virtual address, and .eh_frame_hdr's (the base of datarel). */
typedef struct cfi_section {
    const uint8_t *data;
    uint64_t len, vaddr;
    uint64_t hdr_vaddr;   /* 0: unknown */
} cfi_section;

typedef struct cfi_cie {
    uint64_t offset;           /* in the section: a cache key */
    uint64_t code_align;
    int64_t data_align;
    uint64_t ra_reg;
    uint8_t fde_enc;
    bool z;                    /* augmentation data present ('z') */
    bool signal;               /* 'S': its FDEs are signal trampolines */
    const uint8_t *insns, *insns_end;
} cfi_cie;

typedef struct cfi_fde {
    uint64_t start, end;       /* [start, end) of code */
    uint64_t cie;              /* offset of its CIE in the section */
    uint64_t insns, insns_end; /* offsets of its program in the section */
} cfi_fde;

/* The rules a CFA program tracks: the CFA, rbp's and the return address's. */
enum { CFI_CFA_REG, CFI_CFA_PLT, CFI_CFA_UNKNOWN };
enum { CFI_R_SAME, CFI_R_OFFSET, CFI_R_UNDEF, CFI_R_OTHER };
typedef struct cfi_state {
    uint8_t cfa_kind;          /* CFI_CFA_* */
    uint64_t cfa_reg;          /* DWARF register of CFI_CFA_REG */
    int64_t cfa_off;           /* offset of CFI_CFA_REG; the threshold literal of CFI_CFA_PLT */
    uint8_t fp_rule, ra_rule;  /* CFI_R_* */
    int64_t fp_off, ra_off;    /* of CFI_R_OFFSET: from the CFA */
} cfi_state;

static uint64_t cfi_u(cfi_cursor *c, unsigned n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return v;
}

static uint64_t cfi_uleb(cfi_cursor *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (c->bad || c->p >= c->end || shift > 63) {
            c->bad = true;
            return 0;
        }
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

static int64_t cfi_sleb(cfi_cursor *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (c->bad || c->p >= c->end || shift > 63) {
            c->bad = true;
            return 0;
        }
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if (shift + 7 < 64 && (b & 0x40))
                v |= ~0ull << (shift + 7);
            return (int64_t)v;
        }
    }
}

/* factor * align, wrapping as unsigned arithmetic does (a corrupt factor must not overflow a signed product). */
static int64_t cfi_scaled(uint64_t factor, int64_t align)
{
    return (int64_t)(factor * (uint64_t)align);
}

/* A pointer in encoding enc (DW_EH_PE_*); pcrel is relative to the field's own address. An application this
 * reader cannot resolve (textrel, funcrel, aligned, datarel without .eh_frame_hdr, indirect) sets bad. */
static uint64_t cfi_pointer(cfi_cursor *c, const cfi_section *s, uint8_t enc)
{
    uint64_t field = s->vaddr + (uint64_t)(c->p - s->data);
    uint64_t v;
    switch (enc & 0x0f) {
    case 0x00: v = cfi_u(c, 8); break;                                /* absptr */
    case 0x01: v = cfi_uleb(c); break;
    case 0x02: v = cfi_u(c, 2); break;
    case 0x03: v = cfi_u(c, 4); break;
    case 0x04: v = cfi_u(c, 8); break;
    case 0x09: v = (uint64_t)cfi_sleb(c); break;
    case 0x0a: v = (uint64_t)(int64_t)(int16_t)cfi_u(c, 2); break;
    case 0x0b: v = (uint64_t)(int64_t)(int32_t)cfi_u(c, 4); break;
    case 0x0c: v = cfi_u(c, 8); break;
    default: c->bad = true; return 0;
    }
    switch (enc & 0x70) {
    case 0x00: break;
    case 0x10: v += field; break;                                     /* pcrel */
    case 0x30:                                                        /* datarel */
        if (!s->hdr_vaddr)
            c->bad = true;
        v += s->hdr_vaddr;
        break;
    default: c->bad = true; break;
    }
    if (enc & 0x80)
        c->bad = true;   /* indirect: the pointer's target is only known at run time */
    return v;
}

/* Skips a pointer of encoding enc (its size only), e.g. the personality routine's. */
static void cfi_skip_pointer(cfi_cursor *c, uint8_t enc)
{
    switch (enc & 0x0f) {
    case 0x00: case 0x04: case 0x0c: cfi_u(c, 8); break;
    case 0x01: cfi_uleb(c); break;
    case 0x09: cfi_sleb(c); break;
    case 0x02: case 0x0a: cfi_u(c, 2); break;
    case 0x03: case 0x0b: cfi_u(c, 4); break;
    default: c->bad = true; break;
    }
}

/* The record at off: its body [*body, *next) and its id field's value and offset; false at the terminator or
 * a record that does not fit. */
static bool cfi_record(const cfi_section *s, uint64_t off, uint64_t *id, uint64_t *id_at, cfi_cursor *body,
                       uint64_t *next)
{
    cfi_cursor c = { s->data + off, s->data + s->len, false };
    uint64_t len = cfi_u(&c, 4);
    unsigned idsize = 4;
    if (len == 0xffffffffu) {
        len = cfi_u(&c, 8);
        idsize = 8;
    }
    if (c.bad || len == 0 || len > (uint64_t)(c.end - c.p) || len < idsize)
        return false;
    *next = (uint64_t)(c.p - s->data) + len;
    *id_at = (uint64_t)(c.p - s->data);
    body->end = c.p + len;
    *id = cfi_u(&c, idsize);
    body->p = c.p;
    body->bad = false;
    return true;
}

/* Parses the CIE at off into *cie. */
static bool cfi_parse_cie(const cfi_section *s, uint64_t off, cfi_cie *cie)
{
    uint64_t id, id_at, next;
    cfi_cursor c;
    if (off >= s->len || !cfi_record(s, off, &id, &id_at, &c, &next) || id != 0)
        return false;
    memset(cie, 0, sizeof *cie);
    cie->offset = UINT64_MAX;   /* set on success only: a failed CIE is never taken for cached */
    uint8_t version = (uint8_t)cfi_u(&c, 1);
    if (version != 1 && version != 3 && version != 4)
        return false;
    const char *aug = (const char *)c.p;
    const uint8_t *nul = memchr(c.p, '\0', (size_t)(c.end - c.p));
    if (!nul)
        return false;
    c.p = nul + 1;
    if (aug[0] && aug[0] != 'z')
        return false;   /* without 'z' an unknown augmentation cannot be skipped */
    if (version == 4)
        cfi_u(&c, 2);   /* address_size, segment_selector_size */
    cie->code_align = cfi_uleb(&c);
    cie->data_align = cfi_sleb(&c);
    cie->ra_reg = version == 1 ? cfi_u(&c, 1) : cfi_uleb(&c);
    cie->fde_enc = 0;   /* absptr */
    if (aug[0] == 'z') {
        cie->z = true;
        uint64_t alen = cfi_uleb(&c);
        if (c.bad || alen > (uint64_t)(c.end - c.p))
            return false;
        cfi_cursor a = { c.p, c.p + alen, false };
        for (const char *k = aug + 1; *k && !a.bad; k++) {
            if (*k == 'R')
                cie->fde_enc = (uint8_t)cfi_u(&a, 1);
            else if (*k == 'P')
                cfi_skip_pointer(&a, (uint8_t)cfi_u(&a, 1));
            else if (*k == 'L')
                cfi_u(&a, 1);
            else if (*k == 'S')
                cie->signal = true;
            else if (*k != 'B' && *k != 'G')
                break;   /* the rest of the data is skipped by its length */
        }
        if (a.bad)
            return false;
        c.p += alen;
    }
    cie->insns = c.p;
    cie->insns_end = c.end;
    if (c.bad || cie->code_align == 0)
        return false;
    cie->offset = off;
    return true;
}

/* Reads the FDE whose body is c (its id field at id_at holds id, the distance back to its CIE). */
static bool cfi_parse_fde(const cfi_section *s, cfi_cursor c, uint64_t id, uint64_t id_at, cfi_cie *cie,
                          cfi_fde *out)
{
    if (id > id_at || (cie->offset != id_at - id && !cfi_parse_cie(s, id_at - id, cie)))
        return false;
    out->cie = id_at - id;
    uint64_t start = cfi_pointer(&c, s, cie->fde_enc);
    uint64_t range = cfi_pointer(&c, s, cie->fde_enc & 0x0f);
    if (cie->z) {
        uint64_t alen = cfi_uleb(&c);
        if (alen > (uint64_t)(c.end - c.p))
            return false;
        c.p += alen;
    }
    if (c.bad || start == 0 || range == 0 || start + range < start)
        return false;
    out->start = start;
    out->end = start + range;
    out->insns = (uint64_t)(c.p - s->data);
    out->insns_end = (uint64_t)(c.end - s->data);
    return true;
}

/* Appends row r, replacing the last row when it starts at the same pc and merging it into the one before when the
 * rule is the same. */
static bool cfi_append(dwarf_cfi *t, cfi_row r)
{
    if (r.kind == CFI_NONE || r.kind == CFI_END || r.kind == CFI_SIGNAL)
        r.cfa_off = 0, r.fp_off = CFI_ROW_FP_SAME;
    if (t->n && t->rows[t->n - 1].pc == r.pc)
        t->n--;
    if (t->n) {
        const cfi_row *last = &t->rows[t->n - 1];
        if (last->kind == r.kind && last->cfa_off == r.cfa_off && last->fp_off == r.fp_off)
            return true;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4096;
        cfi_row *p = realloc(t->rows, cap * sizeof *p);
        if (!p)
            return false;
        t->rows = p;
        t->cap = cap;
    }
    t->rows[t->n++] = r;
    return true;
}

/* Appends a row (pc, the rule of st); none: a row of no rule. */
static bool cfi_push_row(dwarf_cfi *t, uint64_t pc, const cfi_state *st, bool none)
{
    cfi_row r = { .pc = (uint32_t)(pc - t->base), .kind = CFI_NONE, .fp_off = CFI_ROW_FP_SAME };
    if (!none && st->ra_rule == CFI_R_UNDEF) {
        r.kind = CFI_END;
    } else if (!none && st->ra_rule == CFI_R_SAME) {
        bool fp_ok = st->fp_rule == CFI_R_SAME || st->fp_rule == CFI_R_UNDEF ||
                     (st->fp_rule == CFI_R_OFFSET && st->fp_off > INT16_MIN && st->fp_off <= INT16_MAX);
        if (st->fp_rule == CFI_R_OFFSET)
            r.fp_off = (int16_t)st->fp_off;
        if (!fp_ok) {
            /* rbp saved where we do not follow: no row */
        } else if (st->cfa_kind == CFI_CFA_PLT) {
            r.kind = CFI_REG_PLT;
            r.cfa_off = (int32_t)st->cfa_off;
        } else if (st->cfa_kind == CFI_CFA_REG && (st->cfa_reg == CFI_DW_RSP || st->cfa_reg == CFI_DW_RBP) &&
                   st->cfa_off >= INT32_MIN && st->cfa_off <= INT32_MAX) {
            r.kind = st->cfa_reg == CFI_DW_RSP ? CFI_REG_SP : CFI_REG_FP;
            r.cfa_off = (int32_t)st->cfa_off;
        }
    }
    return cfi_append(t, r);
}

/* The threshold literal of the PLT's CFA expression (breg7 8; breg16 0; lit15; and; litN; ge; lit3; shl; plus),
 * -1 when the block is any other expression. */
static int cfi_plt_expression(const uint8_t *p, uint64_t len)
{
    static const uint8_t head[] = { 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a }, tail[] = { 0x2a, 0x33, 0x24, 0x22 };
    if (len != sizeof head + 1 + sizeof tail || memcmp(p, head, sizeof head) != 0 ||
        memcmp(p + sizeof head + 1, tail, sizeof tail) != 0 || p[sizeof head] < 0x30 || p[sizeof head] > 0x3f)
        return -1;
    return p[sizeof head] - 0x30;
}

/* The rule a register gets back on DW_CFA_restore: its rule after the CIE's initial instructions. */
static void cfi_restore(cfi_state *st, const cfi_state *init, uint64_t reg)
{
    if (reg == CFI_DW_RBP)
        st->fp_rule = init->fp_rule, st->fp_off = init->fp_off;
    else if (reg == CFI_DW_RA)
        st->ra_rule = init->ra_rule, st->ra_off = init->ra_off;
}

/* Sets rbp's or the return address's rule (other registers are not followed). */
static void cfi_set_rule(cfi_state *st, uint64_t reg, uint8_t rule, int64_t off)
{
    if (reg == CFI_DW_RBP) {
        st->fp_rule = rule;
        st->fp_off = off;
    } else if (reg == CFI_DW_RA) {
        /* the return address is where x86-64 keeps it (CFA-8) or undefined; anything else is not followed */
        st->ra_rule = rule == CFI_R_UNDEF ? CFI_R_UNDEF : rule == CFI_R_OFFSET && off == -8 ? CFI_R_SAME : CFI_R_OTHER;
        st->ra_off = off;
    }
}

/* After half of a register+offset CFA rule changed: a rule that was not register+offset is now unknown. */
static void cfi_cfa_half(cfi_state *st)
{
    if (st->cfa_kind != CFI_CFA_REG)
        st->cfa_kind = CFI_CFA_UNKNOWN;
}

/* Runs the CFA program in c from state *st. With t NULL (the CIE's initial instructions) no rows are made and
 * an advance is an error; otherwise rows for [*loc, end) are appended. false: a malformed or unknown op (the
 * caller ends the FDE's rows there). */
static bool cfi_run(dwarf_cfi *t, const cfi_section *s, const cfi_cie *cie, cfi_cursor c, cfi_state *st,
                    const cfi_state *init, uint64_t *loc, uint64_t end, bool *oom)
{
    cfi_state stack[CFI_STACK_DEPTH];
    unsigned depth = 0;
    const int64_t da = cie->data_align;
    while (c.p < c.end) {
        uint8_t op = (uint8_t)cfi_u(&c, 1);
        uint64_t delta = 0, reg, len;
        bool advance = false;
        int lit;
        switch (op >> 6) {   /* the three ops with an operand in their low 6 bits */
        case 1:   /* advance_loc */
            delta = op & 0x3f;
            advance = true;
            break;
        case 2:   /* offset */
            cfi_set_rule(st, op & 0x3f, CFI_R_OFFSET, cfi_scaled(cfi_uleb(&c), da));
            break;
        case 3:   /* restore */
            cfi_restore(st, init, op & 0x3f);
            break;
        default:
            switch (op) {
            case 0x00:   /* nop */
                break;
            case 0x01: {   /* set_loc */
                uint64_t to = cfi_pointer(&c, s, cie->fde_enc);
                if (to < *loc)
                    return false;
                delta = (to - *loc) / cie->code_align;
                advance = true;
                break;
            }
            case 0x02: delta = cfi_u(&c, 1), advance = true; break;   /* advance_loc1 */
            case 0x03: delta = cfi_u(&c, 2), advance = true; break;   /* advance_loc2 */
            case 0x04: delta = cfi_u(&c, 4), advance = true; break;   /* advance_loc4 */
            case 0x05:   /* offset_extended */
                reg = cfi_uleb(&c);
                cfi_set_rule(st, reg, CFI_R_OFFSET, cfi_scaled(cfi_uleb(&c), da));
                break;
            case 0x11:   /* offset_extended_sf */
                reg = cfi_uleb(&c);
                cfi_set_rule(st, reg, CFI_R_OFFSET, cfi_scaled((uint64_t)cfi_sleb(&c), da));
                break;
            case 0x2f:   /* GNU_negative_offset_extended */
                reg = cfi_uleb(&c);
                cfi_set_rule(st, reg, CFI_R_OFFSET, cfi_scaled(0 - cfi_uleb(&c), da));
                break;
            case 0x06:   /* restore_extended */
                cfi_restore(st, init, cfi_uleb(&c));
                break;
            case 0x07:   /* undefined */
                cfi_set_rule(st, cfi_uleb(&c), CFI_R_UNDEF, 0);
                break;
            case 0x08:   /* same_value */
                reg = cfi_uleb(&c);
                cfi_set_rule(st, reg, reg == CFI_DW_RA ? CFI_R_OTHER : CFI_R_SAME, 0);
                break;
            case 0x09:   /* register: reg is in another register */
                reg = cfi_uleb(&c);
                cfi_uleb(&c);
                cfi_set_rule(st, reg, CFI_R_OTHER, 0);
                break;
            case 0x14:   /* val_offset */
            case 0x15:   /* val_offset_sf */
                reg = cfi_uleb(&c);
                if (op == 0x14)
                    cfi_uleb(&c);
                else
                    cfi_sleb(&c);
                cfi_set_rule(st, reg, CFI_R_OTHER, 0);
                break;
            case 0x10:   /* expression */
            case 0x16:   /* val_expression */
                reg = cfi_uleb(&c);
                len = cfi_uleb(&c);
                if (c.bad || len > (uint64_t)(c.end - c.p))
                    return false;
                c.p += len;
                cfi_set_rule(st, reg, CFI_R_OTHER, 0);
                break;
            case 0x0a:   /* remember_state */
                if (depth == CFI_STACK_DEPTH)
                    return false;
                stack[depth++] = *st;
                break;
            case 0x0b:   /* restore_state: the CFA rule too (GCC's epilogues rely on it, as libgcc does) */
                if (depth == 0)
                    return false;
                *st = stack[--depth];
                break;
            case 0x0c:   /* def_cfa */
                st->cfa_kind = CFI_CFA_REG;
                st->cfa_reg = cfi_uleb(&c);
                st->cfa_off = (int64_t)cfi_uleb(&c);
                break;
            case 0x12:   /* def_cfa_sf */
                st->cfa_kind = CFI_CFA_REG;
                st->cfa_reg = cfi_uleb(&c);
                st->cfa_off = cfi_scaled((uint64_t)cfi_sleb(&c), da);
                break;
            /* def_cfa_register and def_cfa_offset(_sf) change one half of a register+offset rule; after an
             * expression they leave a rule this table does not know */
            case 0x0d:   /* def_cfa_register */
                st->cfa_reg = cfi_uleb(&c);
                cfi_cfa_half(st);
                break;
            case 0x0e:   /* def_cfa_offset */
                st->cfa_off = (int64_t)cfi_uleb(&c);
                cfi_cfa_half(st);
                break;
            case 0x13:   /* def_cfa_offset_sf */
                st->cfa_off = cfi_scaled((uint64_t)cfi_sleb(&c), da);
                cfi_cfa_half(st);
                break;
            case 0x0f:   /* def_cfa_expression: the PLT's, or one this table does not hold */
                len = cfi_uleb(&c);
                if (c.bad || len > (uint64_t)(c.end - c.p))
                    return false;
                lit = cfi_plt_expression(c.p, len);
                st->cfa_kind = lit >= 0 ? CFI_CFA_PLT : CFI_CFA_UNKNOWN;
                st->cfa_off = lit;
                c.p += len;
                break;
            case 0x2e:   /* GNU_args_size */
                cfi_uleb(&c);
                break;
            default:     /* unknown: the rest of the program cannot be parsed */
                return false;
            }
        }
        if (c.bad)
            return false;
        if (advance) {
            if (!t)
                return false;
            if (delta > (end - *loc) / cie->code_align)
                return true;   /* past the FDE's end: the remaining ops describe nothing */
            uint64_t to = *loc + delta * cie->code_align;
            if (to > *loc && !cfi_push_row(t, *loc, st, false)) {
                *oom = true;
                return false;
            }
            *loc = to;
        }
    }
    return true;
}

static int cfi_fde_cmp(const void *a, const void *b)
{
    const cfi_fde *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Builds the table of the section. NULL on running out of memory or when no FDE is usable. */
static dwarf_cfi *cfi_build(const cfi_section *s)
{
    dwarf_cfi *t = calloc(1, sizeof *t);
    cfi_fde *fdes = NULL;
    size_t nf = 0, capf = 0;
    if (!t)
        return NULL;
    cfi_cie cie = { .offset = UINT64_MAX };
    uint64_t off = 0, id, id_at, next;
    cfi_cursor body;
    while (off < s->len && s->len - off >= 4 && cfi_record(s, off, &id, &id_at, &body, &next)) {
        if (id != 0) {
            cfi_fde f;
            t->fdes++;
            if (!cfi_parse_fde(s, body, id, id_at, &cie, &f)) {
                t->skipped++;
            } else {
                if (nf == capf) {
                    capf = capf ? capf * 2 : 1024;
                    cfi_fde *p = realloc(fdes, capf * sizeof *p);
                    if (!p)
                        goto fail;
                    fdes = p;
                }
                fdes[nf++] = f;
            }
        }
        off = next;
    }
    if (nf == 0)
        goto fail;
    /* a linker's .eh_frame is most often in address order already: sorted only when it is not */
    size_t out_of_order = 1;
    while (out_of_order < nf && cfi_fde_cmp(&fdes[out_of_order - 1], &fdes[out_of_order]) <= 0)
        out_of_order++;
    if (out_of_order < nf)
        qsort(fdes, nf, sizeof *fdes, cfi_fde_cmp);
    t->base = fdes[0].start;
    uint64_t covered = 0;   /* the end of the last FDE used */
    cie.offset = UINT64_MAX;
    for (size_t i = 0; i < nf; i++) {
        const cfi_fde *f = &fdes[i];
        if (f->start < covered || f->end - t->base > UINT32_MAX ||
            (cie.offset != f->cie && !cfi_parse_cie(s, f->cie, &cie))) {
            t->skipped++;
            continue;
        }
        if (cie.signal) {
            /* a signal trampoline: its registers are the kernel's ucontext_t, whatever the program spells out */
            if (!cfi_append(t, (cfi_row){ .pc = (uint32_t)(f->start - t->base), .kind = CFI_SIGNAL }) ||
                !cfi_append(t, (cfi_row){ .pc = (uint32_t)(f->end - t->base), .kind = CFI_NONE }))
                goto fail;
            covered = f->end;
            continue;
        }
        cfi_state init = { .cfa_kind = CFI_CFA_UNKNOWN, .fp_rule = CFI_R_SAME, .ra_rule = CFI_R_SAME }, st;
        uint64_t loc = f->start;
        bool oom = false, ok;
        cfi_cursor ci = { cie.insns, cie.insns_end, false };
        ok = cfi_run(NULL, s, &cie, ci, &init, &init, &loc, f->end, &oom);
        st = init;
        if (ok) {
            cfi_cursor fc = { s->data + f->insns, s->data + f->insns_end, false };
            ok = cfi_run(t, s, &cie, fc, &st, &init, &loc, f->end, &oom);
        }
        if (oom || (loc < f->end && !cfi_push_row(t, loc, &st, !ok)) || !cfi_push_row(t, f->end, &st, true))
            goto fail;
        covered = f->end;
    }
    free(fdes);
    if (t->n == 0) {
        dwarf_cfi_free(t);
        return NULL;
    }
    cfi_row *shrunk = realloc(t->rows, t->n * sizeof *shrunk);
    if (shrunk)
        t->rows = shrunk, t->cap = t->n;
    /* a page before rows[0] gets row 0 (dwarf_cfi_find answers none below rows[0] first) */
    t->npages = ((size_t)t->rows[t->n - 1].pc >> CFI_PAGE_SHIFT) + 2;
    t->page = malloc(t->npages * sizeof *t->page);
    if (!t->page) {
        dwarf_cfi_free(t);
        return NULL;
    }
    size_t r = 0;
    for (size_t p = 0; p < t->npages; p++) {
        uint64_t at = (uint64_t)p << CFI_PAGE_SHIFT;
        while (r + 1 < t->n && t->rows[r + 1].pc <= at)
            r++;
        t->page[p] = (uint32_t)r;
    }
    return t;
fail:
    free(fdes);
    dwarf_cfi_free(t);
    return NULL;
}

/* Finds .eh_frame (and .eh_frame_hdr) in the image: by section header, else through PT_GNU_EH_FRAME. */
static bool cfi_locate(const elf_image *img, cfi_section *s)
{
    memset(s, 0, sizeof *s);
    Elf64_Shdr sh;
    if (elf_image_section(img, ".eh_frame_hdr", &sh) >= 0)
        s->hdr_vaddr = sh.sh_addr;
    if (elf_image_section(img, ".eh_frame", &sh) >= 0 && sh.sh_type == SHT_PROGBITS &&
        (s->data = elf_image_bytes(img, sh.sh_offset, sh.sh_size))) {
        s->len = sh.sh_size;
        s->vaddr = sh.sh_addr;
        return s->len > 0;
    }
    for (unsigned i = 0; i < img->eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (!elf_image_phdr(img, i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
            continue;
        const uint8_t *hdr = elf_image_bytes(img, ph.p_offset, ph.p_filesz);
        if (!hdr || ph.p_filesz < 8 || hdr[0] != 1)
            return false;
        cfi_section h = { .data = hdr, .len = ph.p_filesz, .vaddr = ph.p_vaddr, .hdr_vaddr = ph.p_vaddr };
        cfi_cursor c = { hdr + 4, hdr + ph.p_filesz, false };
        uint64_t at = cfi_pointer(&c, &h, hdr[1]), off, avail;
        if (c.bad || !elf_image_vaddr_offset(img, at, &off, &avail))
            return false;
        s->hdr_vaddr = ph.p_vaddr;
        s->data = img->data + off;
        s->len = avail;
        s->vaddr = at;
        return true;
    }
    return false;
}

dwarf_cfi *dwarf_cfi_load_image(const void *data, size_t len)
{
    elf_image img;
    cfi_section s;
    if (!elf_image_open(&img, data, len) || !cfi_locate(&img, &s))
        return NULL;
    return cfi_build(&s);
}

dwarf_cfi *dwarf_cfi_load(const char *path)
{
    size_t len;
    char err[256];
    const void *data = file_map(path, &len, err, sizeof err);
    if (!data)
        return NULL;
    dwarf_cfi *c = dwarf_cfi_load_image(data, len);
    file_unmap(data, len);
    return c;
}

void dwarf_cfi_free(dwarf_cfi *c)
{
    if (!c)
        return;
    free(c->rows);
    free(c->page);
    free(c);
}

bool dwarf_cfi_find(const dwarf_cfi *c, uint64_t vaddr, cfi_rule *out)
{
    if (!c || c->n == 0 || vaddr < c->base || vaddr - c->base > UINT32_MAX)
        return false;
    uint32_t pc = (uint32_t)(vaddr - c->base);
    if (pc < c->rows[0].pc)
        return false;
    /* the last row at or before pc lies in [page[p], page[p + 1]]; past the last page it is the last row */
    size_t p = pc >> CFI_PAGE_SHIFT, lo, n;
    if (p + 1 < c->npages)
        lo = c->page[p], n = c->page[p + 1] - lo + 1;
    else
        lo = c->n - 1, n = 1;
    const cfi_row *base = c->rows + lo;
    while (n > 1) {   /* invariant: base->pc <= pc, and the answer lies in [base, base + n) */
        size_t half = n / 2;
        base = base[half].pc <= pc ? base + half : base;
        n -= half;
    }
    lo = (size_t)(base - c->rows);
    const cfi_row *r = &c->rows[lo];
    if (r->kind == CFI_NONE)
        return false;
    out->cfa_reg = r->kind;
    out->cfa_off = r->cfa_off;
    out->fp_off = r->fp_off == CFI_ROW_FP_SAME ? CFI_FP_SAME : r->fp_off;
    return true;
}

size_t dwarf_cfi_rows(const dwarf_cfi *c)
{
    return c ? c->n : 0;
}

void dwarf_cfi_stats(const dwarf_cfi *c, size_t *fdes, size_t *skipped)
{
    *fdes = c ? c->fdes : 0;
    *skipped = c ? c->skipped : 0;
}
