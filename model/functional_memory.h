// Sparse byte-addressable memory. Bytes never written read as a deterministic function of their
// address, so every level can be checked against it without initialising gigabytes.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "model/types.h"

namespace locsim {

// Initial content of the 32-bit word at a 4-byte-aligned address (a hash of the address).
std::uint32_t initial_word(Addr word_addr);
// Value a store of kernel `kernel_seq` writes into the 32-bit word at word_addr.
std::uint32_t store_word(Addr word_addr, std::uint32_t kernel_seq);

class FunctionalMemory {
 public:
  static constexpr std::uint32_t kPageBytes = 4096;
  void read(Addr a, std::uint8_t* dst, std::uint32_t n) const;
  void write(Addr a, const std::uint8_t* src, std::uint32_t n);
  // Writes only bytes whose bit is set in mask, for a line-aligned block of line_bytes.
  void write_masked(Addr line, const std::uint8_t* src, const ByteMask& mask,
                    std::uint32_t line_bytes);
  std::uint32_t read_word(Addr a) const;
  void write_word(Addr a, std::uint32_t v);
  std::size_t pages() const { return pages_.size(); }
  // The bytes of the page holding `a` (created with its initial content if new); the pointer
  // stays valid for the memory's lifetime (a virtual platform's DMI region).
  std::uint8_t* page_data(Addr a) { return page(a & ~Addr{kPageBytes - 1}).b; }

 private:
  struct Page {
    std::uint8_t b[kPageBytes];
  };
  Page& page(Addr page_addr);
  std::unordered_map<Addr, std::unique_ptr<Page>> pages_;
};

}  // namespace locsim
