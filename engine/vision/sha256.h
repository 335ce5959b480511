#pragma once
// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits: the fingerprint of a
// preprocessed image canvas that `hearth-cli image-embed` prints and the tests compare.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace hearth::vision {

std::string sha256_hex(std::span<const uint8_t> bytes);

} // namespace hearth::vision
