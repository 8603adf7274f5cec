#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "model/functional_memory.h"

using namespace locsim;

namespace {
// Byte at address x of untouched memory: little-endian byte of the initial word.
std::uint8_t initial_byte(Addr x) {
  return static_cast<std::uint8_t>(initial_word(x & ~Addr{3}) >> (8 * (x & 3)));
}
}  // namespace

TEST_CASE("initial_word / store_word are deterministic hashes of the word address", "[fmem]") {
  CHECK(initial_word(0x1000) == initial_word(0x1000));
  CHECK(initial_word(0x1000) != initial_word(0x1004));
  CHECK(initial_word(0x1000) == initial_word(0x1003));  // depends on the word, not the byte
  CHECK(store_word(0x1000, 0) != store_word(0x1000, 1));
  CHECK(store_word(0x1000, 0) != store_word(0x1004, 0));
  CHECK(store_word(0x1000, 0) != initial_word(0x1000));
}

TEST_CASE("FunctionalMemory: unwritten bytes read as initial_word", "[fmem]") {
  const FunctionalMemory m;
  CHECK(m.read_word(0x2000) == initial_word(0x2000));
  CHECK(m.read_word(0xFFFF'FFF0'0000ull) == initial_word(0xFFFF'FFF0'0000ull));
  std::uint8_t b[7];
  m.read(0x3001, b, 7);  // unaligned, spans two words
  for (unsigned i = 0; i < 7; ++i) CHECK(b[i] == initial_byte(0x3001 + i));
  // An unaligned word read assembles bytes of two initial words.
  const std::uint32_t w = m.read_word(0x3002);
  CHECK(w == ((initial_word(0x3000) >> 16) | (initial_word(0x3004) << 16)));
  CHECK(m.pages() == 0);  // reads allocate nothing
}

TEST_CASE("FunctionalMemory: write/read round trip across a page boundary", "[fmem]") {
  FunctionalMemory m;
  const Addr a = 3 * FunctionalMemory::kPageBytes - 6;  // 6 bytes in page 2, 10 in page 3
  std::uint8_t src[16];
  for (unsigned i = 0; i < 16; ++i) src[i] = static_cast<std::uint8_t>(0xA0 + i);
  m.write(a, src, 16);
  CHECK(m.pages() == 2);
  std::uint8_t dst[16] = {};
  m.read(a, dst, 16);
  CHECK(std::memcmp(src, dst, 16) == 0);
  // Neighbours keep their initial content, in both pages.
  std::uint8_t n[2];
  m.read(a - 1, n, 1);
  m.read(a + 16, n + 1, 1);
  CHECK(n[0] == initial_byte(a - 1));
  CHECK(n[1] == initial_byte(a + 16));
  CHECK(m.read_word(2 * FunctionalMemory::kPageBytes) ==
        initial_word(2 * FunctionalMemory::kPageBytes));
  CHECK(m.read_word(3 * FunctionalMemory::kPageBytes + 64) ==
        initial_word(3 * FunctionalMemory::kPageBytes + 64));
  // The word straddling the boundary: bytes 0xA4,0xA5 | 0xA6,0xA7 (little-endian).
  CHECK(m.read_word(3 * FunctionalMemory::kPageBytes - 2) == 0xA7A6A5A4u);

  // write_word across the boundary of pages 5/6.
  const Addr w = 6 * FunctionalMemory::kPageBytes - 1;
  m.write_word(w, 0x11223344u);
  CHECK(m.read_word(w) == 0x11223344u);
  CHECK(m.pages() == 4);
  std::uint8_t last;
  m.read(w, &last, 1);
  CHECK(last == 0x44);
  // Overwrite part of it.
  const std::uint8_t ff = 0xFF;
  m.write(w + 1, &ff, 1);
  CHECK(m.read_word(w) == 0x1122FF44u);
}

TEST_CASE("FunctionalMemory: write_masked writes only the selected bytes", "[fmem]") {
  FunctionalMemory m;
  const Addr line = 0x8000;
  std::vector<std::uint8_t> src(128);
  for (unsigned i = 0; i < 128; ++i) src[i] = static_cast<std::uint8_t>(i ^ 0x5A);
  ByteMask mask;
  mask.set(0);
  mask.set(5);
  mask.set(64);
  mask.set(127);
  m.write_masked(line, src.data(), mask, 128);
  std::vector<std::uint8_t> out(128);
  m.read(line, out.data(), 128);
  for (unsigned i = 0; i < 128; ++i) {
    INFO("byte " << i);
    if (mask.test(i))
      CHECK(out[i] == src[i]);
    else
      CHECK(out[i] == initial_byte(line + i));
  }
  // Bytes beyond line_bytes are never written, even if their mask bit is set.
  ByteMask all;
  all.set_range(0, 128);
  m.write_masked(0x9000, src.data(), all, 32);
  m.read(0x9000, out.data(), 64);
  for (unsigned i = 0; i < 64; ++i) {
    INFO("byte " << i);
    CHECK(out[i] == (i < 32 ? src[i] : initial_byte(0x9000 + i)));
  }
  // An empty mask changes nothing.
  m.write_masked(0xA000, src.data(), ByteMask{}, 128);
  CHECK(m.read_word(0xA000) == initial_word(0xA000));
}
