// The snapshot checksum.
#include "internal.h"

// A fast 64-bit checksum (four independent multiply-xorshift lanes, then mixed), for detecting
// corrupted snapshot files. Not cryptographic.
static inline uint64_t mix(uint64_t h, uint64_t w) {
    h ^= w * 0x9E3779B97F4A7C15ull;
    h = (h << 31) | (h >> 33);
    return h * 0xC2B2AE3D27D4EB4Full;
}

uint64_t sift_checksum(const void *data, size_t length, uint64_t seed) {
    const uint8_t *p = data;
    uint64_t a = seed ^ 0x243F6A8885A308D3ull, b = seed ^ 0x13198A2E03707344ull;
    uint64_t c = seed ^ 0xA4093822299F31D0ull, d = seed ^ 0x082EFA98EC4E6C89ull;
    size_t i = 0;
    for (; i + 32 <= length; i += 32) {
        uint64_t w[4];
        memcpy(w, p + i, 32);
        a = mix(a, w[0]);
        b = mix(b, w[1]);
        c = mix(c, w[2]);
        d = mix(d, w[3]);
    }
    uint64_t h = mix(mix(mix(mix((uint64_t)length, a), b), c), d);
    for (; i + 8 <= length; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = mix(h, w);
    }
    uint64_t tail = 0;
    memcpy(&tail, p + i, length - i);
    h = mix(h, tail ^ ((uint64_t)(length - i) << 56));
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}

void sift_checksum_begin(sift_checksum_state *s, uint64_t seed) {
    s->lanes[0] = seed ^ 0x243F6A8885A308D3ull;
    s->lanes[1] = seed ^ 0x13198A2E03707344ull;
    s->lanes[2] = seed ^ 0xA4093822299F31D0ull;
    s->lanes[3] = seed ^ 0x082EFA98EC4E6C89ull;
    s->length = 0;
}

static inline void checksum_block(sift_checksum_state *s, const uint8_t *block) {
    uint64_t w[4];
    memcpy(w, block, 32);
    for (int k = 0; k < 4; k++) s->lanes[k] = mix(s->lanes[k], w[k]);
}

void sift_checksum_update(sift_checksum_state *s, const void *data, size_t length) {
    if (!length) return;
    const uint8_t *p = data;
    size_t held = (size_t)(s->length % 32);
    s->length += length;
    if (held) {
        size_t take = 32 - held < length ? 32 - held : length;
        memcpy(s->pending + held, p, take);
        p += take;
        length -= take;
        if (held + take < 32) return;
        checksum_block(s, s->pending);
    }
    for (; length >= 32; p += 32, length -= 32) checksum_block(s, p);
    if (length) memcpy(s->pending, p, length);
}

uint64_t sift_checksum_end(const sift_checksum_state *s) {
    uint64_t h = mix(mix(mix(mix(s->length, s->lanes[0]), s->lanes[1]), s->lanes[2]), s->lanes[3]);
    size_t rest = (size_t)(s->length % 32), i = 0;
    for (; i + 8 <= rest; i += 8) {
        uint64_t w;
        memcpy(&w, s->pending + i, 8);
        h = mix(h, w);
    }
    uint64_t tail = 0;
    memcpy(&tail, s->pending + i, rest - i);
    h = mix(h, tail ^ ((uint64_t)(rest - i) << 56));
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}
