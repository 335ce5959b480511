#pragma once
// A fast non-cryptographic 64-bit hash, for identity and corruption checks of the files the
// engine writes and reads back (saved conversations, cached weight copies).
#include <cstddef>
#include <cstdint>

namespace hearth::engine {

uint64_t hash_bytes(const void* data, size_t size, uint64_t seed = 0);

// A checksum of large data at memory speed: a Fletcher sum of 64-bit words per lane, finished
// by hash_bytes. It finds zeroed, cut, shifted or flipped bytes, not deliberate changes.
uint64_t checksum_bytes(const void* data, size_t size, uint64_t seed = 0);

} // namespace hearth::engine
