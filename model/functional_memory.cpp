#include "model/functional_memory.h"

#include <cstring>

namespace locsim {

namespace {
std::uint64_t mix(std::uint64_t z) {  // splitmix64 finaliser
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

std::uint32_t initial_word(Addr w) {
  return static_cast<std::uint32_t>(mix(w >> 2));
}
std::uint32_t store_word(Addr w, std::uint32_t k) {
  return static_cast<std::uint32_t>(mix((w >> 2) ^ (std::uint64_t{k + 1} << 48) ^ 0x5bd1e995ull));
}

FunctionalMemory::Page& FunctionalMemory::page(Addr pa) {
  auto& p = pages_[pa];
  if (!p) {
    p = std::make_unique<Page>();
    for (std::uint32_t i = 0; i < kPageBytes; i += 4) {
      std::uint32_t v = initial_word(pa + i);
      std::memcpy(p->b + i, &v, 4);
    }
  }
  return *p;
}

void FunctionalMemory::read(Addr a, std::uint8_t* dst, std::uint32_t n) const {
  for (std::uint32_t i = 0; i < n; ++i) {
    const Addr x = a + i;
    const Addr pa = x & ~Addr{kPageBytes - 1};
    auto it = pages_.find(pa);
    if (it != pages_.end())
      dst[i] = it->second->b[x - pa];
    else
      dst[i] = static_cast<std::uint8_t>(initial_word(x & ~Addr{3}) >> (8 * (x & 3)));
  }
}

void FunctionalMemory::write(Addr a, const std::uint8_t* src, std::uint32_t n) {
  for (std::uint32_t i = 0; i < n; ++i) {
    const Addr x = a + i;
    const Addr pa = x & ~Addr{kPageBytes - 1};
    page(pa).b[x - pa] = src[i];
  }
}

void FunctionalMemory::write_masked(Addr line, const std::uint8_t* src, const ByteMask& mask,
                                    std::uint32_t line_bytes) {
  for (std::uint32_t i = 0; i < line_bytes; ++i)
    if (mask.test(i)) write(line + i, src + i, 1);
}

std::uint32_t FunctionalMemory::read_word(Addr a) const {
  std::uint8_t b[4];
  read(a, b, 4);
  std::uint32_t v;
  std::memcpy(&v, b, 4);
  return v;
}

void FunctionalMemory::write_word(Addr a, std::uint32_t v) {
  std::uint8_t b[4];
  std::memcpy(b, &v, 4);
  write(a, b, 4);
}

}  // namespace locsim
