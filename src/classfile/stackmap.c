/* stackmap.c — rewriting a StackMapTable (JVMS §4.7.4) for moved code:
 * each frame's absolute offset is decoded, mapped through the new layout
 * and encoded again as a delta (switching to the extended frame forms when
 * a delta outgrows 63); Uninitialized(offset) types follow their `new`. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "stackmap.h"

/* Copies n verification types from r to out, remapping Uninitialized offsets. */
static bool stackmap_copy_types(const stackmap_ctx *sm, buf_rd *r, uint32_t n, buf *out)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t tag = buf_get_u1(r);
        if (r->overrun || tag > 8)
            return false;
        buf_put_u1(out, tag);
        if (tag == 7) {
            buf_put_u2(out, buf_get_u2(r));
        } else if (tag == 8) {
            uint16_t off = buf_get_u2(r);
            if (r->overrun || !stackmap_is_new(sm, off))
                return false;
            buf_put_u2(out, (uint16_t)sm->new_insn(sm->map, off));
        }
    }
    return !r->overrun;
}

static int stackmap_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

void stackmap_put_handler_frame(buf *out, uint32_t delta, uint16_t throwable)
{
    buf_put_u1(out, 255);
    buf_put_u2(out, (uint16_t)delta);
    buf_put_u2(out, 0); /* no locals: every local is top, so any frame in the range is assignable */
    buf_put_u2(out, 1);
    buf_put_u1(out, 7);
    buf_put_u2(out, throwable);
}

jp_status stackmap_rewrite(const stackmap_ctx *sm, const cf_attr *a, const uint32_t *need, uint32_t nneed,
                           int64_t handler_at, uint16_t throwable, buf *out, uint32_t *frames_added, char *why,
                           size_t cap)
{
    uint32_t *want = NULL;
    if (nneed) {
        if (!(want = malloc(sizeof *want * nneed)))
            return JP_ERR_NOMEM;
        for (uint32_t i = 0; i < nneed; i++)
            want[i] = need[i] + bc_insn_length(sm->code, sm->code_len, need[i]);
        qsort(want, nneed, sizeof *want, stackmap_cmp_u32);
    }
    uint32_t wi = 0, missing = UINT32_MAX;
    buf_rd r;
    buf_rd_init(&r, sm->cls->b + a->off, a->len);
    uint16_t n = buf_get_u2(&r);
    size_t hdr = out->len;
    buf_put_u2(out, a->name);
    buf_put_u4(out, 0);
    buf_put_u2(out, (uint16_t)(n + (handler_at >= 0)));
    if (handler_at >= 0 && n == 0xffff) {
        free(want);
        return cf_fail(why, cap, JP_ERR_ARG, "stack map table full");
    }
    int64_t prev_old = -1, prev_new = -1;
    jp_status st = JP_OK;
    for (uint16_t i = 0; i < n && st == JP_OK; i++) {
        uint8_t type = buf_get_u1(&r);
        uint32_t delta;
        if (type < 128)
            delta = type & 63;
        else if (type >= 247)
            delta = buf_get_u2(&r);
        else {
            st = cf_fail(why, cap, JP_ERR_FORMAT, "stack map frame %u has reserved type %u", i, type);
            break;
        }
        int64_t old = prev_old + delta + 1;
        if (r.overrun || old >= sm->code_len || !sm->is_insn(sm->map, (uint32_t)old)) {
            st = cf_fail(why, cap, JP_ERR_FORMAT, "stack map frame %u at pc %lld, not an instruction", i, (long long)old);
            break;
        }
        /* needed frames: each must be at an offset the table has a frame for */
        for (; wi < nneed && want[wi] <= (uint32_t)old; wi++)
            if (want[wi] < (uint32_t)old) {
                missing = want[wi];
                break;
            }
        if (missing != UINT32_MAX)
            break;
        int64_t now = sm->new_target(sm->map, (uint32_t)old);
        uint32_t nd = (uint32_t)(now - prev_new - 1);
        if (nd > 0xffff) {
            st = cf_fail(why, cap, JP_ERR_ARG, "stack map delta %u too large", nd);
            break;
        }
        bool ok = true;
        if (type < 64) {
            if (nd <= 63)
                buf_put_u1(out, (uint8_t)nd);
            else {
                buf_put_u1(out, 251);
                buf_put_u2(out, (uint16_t)nd);
            }
        } else if (type < 128 || type == 247) {
            if (nd <= 63)
                buf_put_u1(out, (uint8_t)(64 + nd));
            else {
                buf_put_u1(out, 247);
                buf_put_u2(out, (uint16_t)nd);
            }
            ok = stackmap_copy_types(sm, &r, 1, out);
        } else {
            buf_put_u1(out, type);
            buf_put_u2(out, (uint16_t)nd);
            if (type >= 252 && type <= 254) {
                ok = stackmap_copy_types(sm, &r, type - 251u, out);
            } else if (type == 255) {
                uint16_t nl = buf_get_u2(&r);
                buf_put_u2(out, nl);
                ok = stackmap_copy_types(sm, &r, nl, out);
                uint16_t ns = buf_get_u2(&r);
                buf_put_u2(out, ns);
                ok = ok && stackmap_copy_types(sm, &r, ns, out);
            }
        }
        if (!ok || r.overrun)
            st = cf_fail(why, cap, JP_ERR_FORMAT, "stack map frame %u is malformed", i);
        prev_old = old;
        prev_new = now;
    }
    if (st == JP_OK && missing == UINT32_MAX && r.p != r.end)
        st = cf_fail(why, cap, JP_ERR_FORMAT, "stack map table has trailing bytes");
    if (st == JP_OK && missing == UINT32_MAX && wi < nneed)
        missing = want[wi];
    free(want);
    if (st == JP_OK && missing != UINT32_MAX) {
        out->len = hdr; /* start over: every frame explicit, the missing ones inferred */
        return stackmap_rewrite_full(sm, a, need, nneed, handler_at, throwable, out, frames_added, why, cap);
    }
    if (st == JP_OK && handler_at >= 0) {
        if (handler_at - prev_new - 1 > 0xffff)
            return cf_fail(why, cap, JP_ERR_ARG, "stack map delta too large");
        stackmap_put_handler_frame(out, (uint32_t)(handler_at - prev_new - 1), throwable);
    }
    if (st == JP_OK) {
        size_t len = out->len - hdr - 6;
        if (len > UINT32_MAX)
            return cf_fail(why, cap, JP_ERR_ARG, "stack map too large");
        if (!out->failed)
            be_store_u4(out->data + hdr + 2, (uint32_t)len);
    }
    return st;
}
