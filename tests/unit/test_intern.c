/* test_intern.c — the common layer under the model: the arena (alignment,
 * big blocks, overflow), the intern table (dense 1-based ids in first-seen
 * order, find vs put, growth, keys that never move) and buf (big-endian put
 * and get, a reader that fails softly and never reads past the end), and
 * the id table (records by any 64-bit id, sized by how many there are). */
#include "harness.h"

#include "common/arena.h"
#include "common/buf.h"
#include "common/id_table.h"
#include "common/intern.h"

static void test_arena_alignment(void)
{
    arena a;
    arena_init(&a);
    unsigned char *prev = NULL;
    size_t prev_n = 0;
    for (size_t n = 0; n <= 200; n++) {
        unsigned char *p = arena_alloc(&a, n);
        ASSERT(p != NULL);
        CHECK_EQ_INT((uintptr_t)p % 8, 0);
        memset(p, (int)(n & 0xff), n); /* writable; ASan checks the bounds */
        if (prev)
            CHECK(p >= prev + prev_n || p + n <= prev); /* no overlap */
        prev = p;
        prev_n = n;
    }
    /* zero bytes still gives distinct pointers */
    void *z1 = arena_alloc(&a, 0), *z2 = arena_alloc(&a, 0);
    CHECK(z1 != NULL && z2 != NULL && z1 != z2);
    arena_free(&a);
    CHECK(a.head == NULL);
    CHECK_EQ_INT(a.total, 0);
}

static void test_arena_contents_survive(void)
{
    arena a;
    arena_init(&a);
    enum { N = 20000 };
    static unsigned char *ptrs[N];
    for (unsigned i = 0; i < N; i++) {
        size_t n = 1 + i % 37;
        ptrs[i] = arena_alloc(&a, n);
        if (!ptrs[i])
            ASSERT(!"arena_alloc failed");
        memset(ptrs[i], (int)(i & 0xff), n);
    }
    CHECK(a.total >= (size_t)N * 8);
    bool intact = true;
    for (unsigned i = 0; i < N && intact; i++)
        for (size_t k = 0; k < 1 + i % 37; k++)
            if (ptrs[i][k] != (unsigned char)(i & 0xff))
                intact = false;
    CHECK(intact);
    arena_free(&a);
}

static void test_arena_big_blocks(void)
{
    arena a;
    arena_init(&a);
    /* a big block as the very first allocation */
    size_t big = 1u << 20;
    unsigned char *b1 = arena_alloc(&a, big);
    ASSERT(b1 != NULL);
    CHECK_EQ_INT((uintptr_t)b1 % 8, 0);
    memset(b1, 0xb1, big);
    unsigned char *s1 = arena_alloc(&a, 24);
    ASSERT(s1 != NULL);
    memset(s1, 0x51, 24);
    /* a big block in the middle keeps the current bump chunk */
    unsigned char *b2 = arena_alloc(&a, 3 * big + 3);
    ASSERT(b2 != NULL);
    CHECK_EQ_INT((uintptr_t)b2 % 8, 0);
    memset(b2, 0xb2, 3 * big + 3);
    unsigned char *s2 = arena_alloc(&a, 24);
    ASSERT(s2 != NULL);
    CHECK(s2 == s1 + 24);
    memset(s2, 0x52, 24);
    /* exactly one chunk's worth, and one byte more */
    unsigned char *c1 = arena_alloc(&a, 64 * 1024);
    unsigned char *c2 = arena_alloc(&a, 64 * 1024 + 1);
    ASSERT(c1 && c2);
    memset(c1, 0xc1, 64 * 1024);
    memset(c2, 0xc2, 64 * 1024 + 1);
    CHECK(b1[0] == 0xb1 && b1[big - 1] == 0xb1);
    CHECK(b2[0] == 0xb2 && b2[3 * big + 2] == 0xb2);
    CHECK(s1[0] == 0x51 && s2[23] == 0x52);
    CHECK(a.total >= 4 * big + 128 * 1024);
    arena_free(&a);
}

static void test_arena_overflow(void)
{
    arena a;
    arena_init(&a);
    /* sizes whose rounding up to 8 would wrap around must fail, not succeed small */
    CHECK(arena_alloc(&a, SIZE_MAX) == NULL);
    CHECK(arena_alloc(&a, SIZE_MAX - 3) == NULL);
    CHECK(arena_alloc(&a, SIZE_MAX - 7) == NULL);
    /* the arena still works afterwards */
    void *p = arena_alloc(&a, 16);
    CHECK(p != NULL);
    arena_free(&a);
}

static void test_arena_dup(void)
{
    arena a;
    arena_init(&a);
    const char text[] = "hello, arena";
    char *d = arena_dup(&a, text, sizeof text);
    ASSERT(d != NULL);
    CHECK(d != text);
    CHECK_EQ_STR(d, text);
    CHECK(arena_dup(&a, NULL, 0) != NULL);
    arena_free(&a);
    /* usable again after free */
    d = arena_dup(&a, text, 5);
    CHECK(d && memcmp(d, "hello", 5) == 0);
    arena_free(&a);
}

static void test_intern_ids_dense(void)
{
    arena a;
    intern_table t;
    arena_init(&a);
    intern_init(&t, &a);
    bool added = true;
    CHECK_EQ_INT(intern_count(&t), 0);
    CHECK_EQ_INT(intern_find(&t, "x", 1), 0); /* empty table: nothing allocated yet */
    CHECK_EQ_INT(intern_put(&t, "alpha", 5, &added), 1);
    CHECK(added);
    CHECK_EQ_INT(intern_put(&t, "beta", 4, &added), 2);
    CHECK(added);
    CHECK_EQ_INT(intern_put(&t, "alpha", 5, &added), 1);
    CHECK(!added);
    CHECK_EQ_INT(intern_put(&t, "gamma", 5, NULL), 3);
    CHECK_EQ_INT(intern_put(&t, "beta", 4, NULL), 2);
    CHECK_EQ_INT(intern_count(&t), 3);

    /* find never adds */
    CHECK_EQ_INT(intern_find(&t, "beta", 4), 2);
    CHECK_EQ_INT(intern_find(&t, "delta", 5), 0);
    CHECK_EQ_INT(intern_count(&t), 3);
    /* the length is part of the key: prefixes and embedded NULs differ */
    CHECK_EQ_INT(intern_find(&t, "alp", 3), 0);
    CHECK_EQ_INT(intern_find(&t, "alpha\0", 6), 0);
    CHECK_EQ_INT(intern_put(&t, "alpha\0", 6, &added), 4);
    CHECK(added);
    CHECK_EQ_INT(intern_put(&t, "al\0ha", 5, NULL), 5);

    uint32_t len = 99;
    const char *k = intern_key(&t, 2, &len);
    CHECK_EQ_INT(len, 4);
    CHECK(memcmp(k, "beta", 4) == 0);
    CHECK(intern_key(&t, 1, NULL) != NULL);
    intern_free(&t);
    arena_free(&a);
}

static void test_intern_zero_length(void)
{
    arena a;
    intern_table t;
    arena_init(&a);
    intern_init(&t, &a);
    bool added = false;
    CHECK_EQ_INT(intern_find(&t, "", 0), 0);
    CHECK_EQ_INT(intern_put(&t, "x", 1, NULL), 1);
    CHECK_EQ_INT(intern_find(&t, "", 0), 0);
    CHECK_EQ_INT(intern_put(&t, "", 0, &added), 2);
    CHECK(added);
    CHECK_EQ_INT(intern_put(&t, "", 0, &added), 2);
    CHECK(!added);
    CHECK_EQ_INT(intern_put(&t, NULL, 0, &added), 2); /* no bytes to read */
    CHECK(!added);
    CHECK_EQ_INT(intern_find(&t, "", 0), 2);
    uint32_t len = 99;
    CHECK(intern_key(&t, 2, &len) != NULL);
    CHECK_EQ_INT(len, 0);
    intern_free(&t);
    arena_free(&a);
}

/* Thousands of keys: the slot array grows several times, the entry array
 * moves, but every key keeps its id and its arena copy keeps its address. */
static void test_intern_growth(void)
{
    enum { N = 50000 };
    arena a;
    intern_table t;
    arena_init(&a);
    intern_init(&t, &a);
    static const void *first_ptr[N + 1];
    char key[32];
    uint32_t wrong_id = 0, misaligned = 0, moved = 0;
    for (uint32_t i = 1; i <= N; i++) {
        int n = snprintf(key, sizeof key, "key-%u", i * 7919u);
        bool added = false;
        uint32_t id = intern_put(&t, key, (uint32_t)n, &added);
        if (id != i || !added) {
            wrong_id++;
            break;
        }
        first_ptr[i] = intern_key(&t, id, NULL);
        if ((uintptr_t)first_ptr[i] % 8 != 0)
            misaligned++;
        if (i == 100 || i == 5000) {
            /* pointers taken before growth are still valid and unchanged */
            for (uint32_t j = 1; j <= i; j++) {
                int m = snprintf(key, sizeof key, "key-%u", j * 7919u);
                if (intern_key(&t, j, NULL) != first_ptr[j] || memcmp(first_ptr[j], key, (size_t)m) != 0)
                    moved++;
            }
        }
    }
    CHECK_EQ_INT(wrong_id, 0);
    CHECK_EQ_INT(misaligned, 0);
    CHECK_EQ_INT(moved, 0);
    CHECK_EQ_INT(intern_count(&t), N);
    CHECK(t.slot_mask + 1 >= 2u * N); /* load stays at or below 1/2 */
    uint32_t bad = 0;
    for (uint32_t i = 1; i <= N; i++) {
        int n = snprintf(key, sizeof key, "key-%u", i * 7919u);
        uint32_t len;
        if (intern_find(&t, key, (uint32_t)n) != i || intern_put(&t, key, (uint32_t)n, NULL) != i ||
            intern_key(&t, i, &len) != first_ptr[i] || len != (uint32_t)n || memcmp(first_ptr[i], key, len) != 0)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(intern_count(&t), N);
    CHECK_EQ_INT(intern_find(&t, "key-0", 5), 0);
    intern_free(&t);
    CHECK_EQ_INT(intern_count(&t), 0);
    /* a freed table can be used again (keys stay in the arena) */
    intern_init(&t, &a);
    CHECK_EQ_INT(intern_put(&t, "again", 5, NULL), 1);
    intern_free(&t);
    arena_free(&a);
}

/* Binary keys that share a hash bucket pattern: ids of fixed-size structs,
 * as the model uses them. */
static void test_intern_struct_keys(void)
{
    arena a;
    intern_table t;
    arena_init(&a);
    intern_init(&t, &a);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < 3000; i++) {
        uint32_t k[2] = { i % 17, i };
        if (intern_put(&t, k, sizeof k, NULL) != i + 1)
            bad++;
    }
    for (uint32_t i = 0; i < 3000; i++) {
        uint32_t k[2] = { i % 17, i }, wrong[2] = { (i + 1) % 17, i };
        if (intern_find(&t, k, sizeof k) != i + 1 || intern_find(&t, wrong, sizeof wrong) != 0)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    intern_free(&t);
    arena_free(&a);
}

static void test_intern_hash(void)
{
    /* FNV-1a 32-bit reference values */
    CHECK_EQ_INT(intern_hash("", 0), 2166136261u);
    CHECK_EQ_INT(intern_hash("a", 1), 0xe40c292cu);
    CHECK_EQ_INT(intern_hash("foobar", 6), 0xbf9cf968u);
    CHECK(intern_hash("ab", 2) != intern_hash("ba", 2));
}

static void test_buf_put(void)
{
    buf b;
    buf_init(&b);
    buf_put_u1(&b, 0x01);
    buf_put_u2(&b, 0x0203);
    buf_put_u4(&b, 0x04050607u);
    buf_put_u8(&b, 0x08090a0b0c0d0e0full);
    buf_put(&b, "xy", 2);
    buf_put(&b, NULL, 0);
    static const unsigned char want[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 'x', 'y' };
    CHECK_EQ_MEM(b.data, b.len, want, sizeof want);
    CHECK(!b.failed);
    buf_put_u2(&b, 0xffff);
    buf_put_u4(&b, 0xfffffffeu);
    buf_put_u8(&b, UINT64_MAX);
    CHECK_EQ_INT(b.len, sizeof want + 14);
    CHECK_EQ_INT(b.data[sizeof want + 5], 0xfe);

    size_t cap = b.cap;
    buf_reset(&b);
    CHECK_EQ_INT(b.len, 0);
    CHECK_EQ_INT(b.cap, cap);
    buf_printf(&b, "%s=%d", "depth", 8);
    CHECK_EQ_MEM(b.data, b.len, "depth=8", 7);
    buf_free(&b);
    CHECK(b.data == NULL && b.len == 0);
}

static void test_buf_growth(void)
{
    buf b;
    buf_init(&b);
    for (uint32_t i = 0; i < 100000; i++)
        buf_put_u4(&b, i);
    CHECK_EQ_INT(b.len, 400000);
    CHECK(b.cap >= b.len);
    buf_rd r;
    buf_rd_init(&r, b.data, b.len);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < 100000; i++)
        if (buf_get_u4(&r) != i)
            bad++;
    CHECK_EQ_INT(bad, 0);
    CHECK(!r.overrun);
    CHECK_EQ_INT(buf_rd_left(&r), 0);
    buf_free(&b);

    /* printf longer than its 512-byte stack buffer */
    char big[2000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    buf_init(&b);
    buf_put(&b, "<", 1);
    buf_printf(&b, "%s|%d", big, 42);
    CHECK_EQ_INT(b.len, 1 + 1999 + 3);
    CHECK(b.len > 5 && memcmp(b.data + b.len - 3, "|42", 3) == 0 && b.data[1] == 'q');
    buf_free(&b);
}

static void test_buf_read(void)
{
    static const unsigned char data[] = { 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
                                          0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f };
    buf_rd r;
    buf_rd_init(&r, data, sizeof data);
    CHECK_EQ_INT(buf_get_u1(&r), 0x81);
    CHECK_EQ_INT(buf_get_u2(&r), 0x8283);
    CHECK_EQ_INT(buf_get_u4(&r), 0x84858687u);
    CHECK(buf_get_u8(&r) == 0x88898a8b8c8d8e8full);
    CHECK_EQ_INT(buf_rd_left(&r), 0);
    CHECK(!r.overrun);
    const void *p = buf_get_bytes(&r, 0); /* zero bytes at the end is fine */
    CHECK(p != NULL && !r.overrun);
    CHECK_EQ_INT(buf_get_u1(&r), 0);
    CHECK(r.overrun);

    /* an overrun returns 0, sets the flag and sticks, even for later small gets */
    buf_rd_init(&r, data, 3);
    CHECK_EQ_INT(buf_get_u4(&r), 0);
    CHECK(r.overrun);
    CHECK_EQ_INT(buf_rd_left(&r), 0);
    CHECK_EQ_INT(buf_get_u1(&r), 0);
    CHECK(buf_get_bytes(&r, 0) == NULL);
    CHECK(r.overrun);

    buf_rd_init(&r, data, sizeof data);
    CHECK(buf_get_bytes(&r, SIZE_MAX) == NULL);
    CHECK(r.overrun);
    buf_rd_init(&r, data, sizeof data);
    CHECK(buf_get_bytes(&r, sizeof data + 1) == NULL);
    CHECK(r.overrun);
    buf_rd_init(&r, data, sizeof data);
    CHECK(buf_get_bytes(&r, sizeof data) == data);
    CHECK(!r.overrun);
}

/* For every length, read a fixed sequence of gets from a heap copy of
 * exactly that many bytes (ASan catches any read past it): the gets that fit
 * return the right values; the first that does not, and every get after it,
 * return 0 with the overrun flag set. */
static void test_buf_read_every_length(void)
{
    static const unsigned char data[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
    static const size_t widths[] = { 1, 2, 4, 8, 1 };
    for (size_t len = 0; len <= sizeof data; len++) {
        unsigned char *copy = malloc(len ? len : 1);
        ASSERT(copy != NULL);
        memcpy(copy, data, len);
        buf_rd r;
        buf_rd_init(&r, copy, len);
        size_t off = 0;
        bool over = false, ok = true;
        for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
            size_t w = widths[i];
            uint64_t v = w == 1 ? buf_get_u1(&r) : w == 2 ? buf_get_u2(&r) : w == 4 ? buf_get_u4(&r) : buf_get_u8(&r);
            uint64_t want = 0;
            if (!over && off + w <= len) {
                for (size_t k = 0; k < w; k++)
                    want = (want << 8) | data[off + k];
                off += w;
            } else {
                over = true;
            }
            if (v != want || r.overrun != over) {
                ok = false;
                fprintf(stderr, "    length %zu, get %zu (u%zu): got 0x%llx overrun=%d, want 0x%llx overrun=%d\n",
                        len, i, w, (unsigned long long)v, r.overrun, (unsigned long long)want, over);
            }
        }
        CHECK(ok);
        free(copy);
    }
}

/* ids 0, 2^64-1, 2^63 and 100,000 small ones: records zeroed when new, found again, in first-seen
 * order; the memory is that of the records (an array indexed by id would be 2^64 of them) */
static void test_id_table(void)
{
    id_table t;
    id_table_init(&t, sizeof(uint64_t) * 2);
    CHECK(id_table_get(&t, 0) == NULL && id_table_get(&t, UINT64_MAX) == NULL);
    static const uint64_t big[] = { UINT64_MAX, 0, 1ull << 63, (1u << 26) - 1 };
    for (int i = 0; i < 4; i++) {
        uint64_t *r = id_table_at(&t, big[i]);
        ASSERT(r != NULL);
        CHECK(r[0] == 0 && r[1] == 0);
        r[0] = big[i] ^ 0x5a;
        r[1] = (uint64_t)i;
    }
    enum { N = 100000 };
    for (uint64_t id = 1; id <= N; id++) {
        uint64_t *r = id_table_at(&t, id * 7);
        ASSERT(r != NULL);
        r[0] = id * 7 ^ 0x5a;
        r[1] = id + 3;
    }
    CHECK_EQ_INT(id_table_count(&t), N + 4);
    CHECK(t.cap <= 2 * (N + 4));
    for (int i = 0; i < 4; i++) {
        const uint64_t *r = id_table_get(&t, big[i]);
        CHECK(r && r[0] == (big[i] ^ 0x5a));
    }
    uint64_t bad = 0;
    for (uint64_t id = 1; id <= N; id++) {
        const uint64_t *r = id_table_get(&t, id * 7);
        bad += !r || r[0] != (id * 7 ^ 0x5a);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(id_table_get(&t, 8) == NULL && id_table_get(&t, UINT64_MAX - 1) == NULL);
    uint64_t id;
    const uint64_t *r = id_table_nth(&t, 0, &id);
    CHECK(id == UINT64_MAX && r[0] == (UINT64_MAX ^ 0x5a));
    id_table_nth(&t, 4, &id);
    CHECK_EQ_INT(id, 7);
    CHECK(id_table_at(&t, 7) == id_table_nth(&t, 4, &id)); /* found, not added again */
    CHECK_EQ_INT(id_table_count(&t), N + 4);
    id_table_free(&t);
    CHECK_EQ_INT(id_table_count(&t), 0);
}

int main(void)
{
    RUN(test_id_table);
    RUN(test_arena_alignment);
    RUN(test_arena_contents_survive);
    RUN(test_arena_big_blocks);
    RUN(test_arena_overflow);
    RUN(test_arena_dup);
    RUN(test_intern_ids_dense);
    RUN(test_intern_zero_length);
    RUN(test_intern_growth);
    RUN(test_intern_struct_keys);
    RUN(test_intern_hash);
    RUN(test_buf_put);
    RUN(test_buf_growth);
    RUN(test_buf_read);
    RUN(test_buf_read_every_length);
    return DONE();
}
