#include "model/golden_memory.h"

#include <cstring>
#include <sstream>

namespace locsim {

void GoldenMemory::begin_kernel(std::uint32_t kernel_seq) {
  kernel_seq_ = kernel_seq;
  kernel_.clear();
}

void GoldenMemory::store(Addr line_addr, const ByteMask& bytes, std::uint32_t line_bytes,
                         std::uint8_t* out) {
  for (std::uint32_t w = 0; w < line_bytes; w += 4) {
    std::uint8_t m = 0;
    for (unsigned b = 0; b < 4; ++b)
      if (bytes.test(w + b)) m |= static_cast<std::uint8_t>(1u << b);
    if (!m) continue;
    Addr wa = line_addr + w;
    std::uint32_t v = store_word(wa, kernel_seq_);
    std::memcpy(out + w, &v, 4);
    kernel_[wa].stored_bytes |= m;
  }
}

void GoldenMemory::atomic_add(Addr word_addr, std::uint32_t count) {
  kernel_[word_addr].atomic_adds += count;
}

std::string GoldenMemory::check_load(Addr line_addr, const ByteMask& bytes,
                                     std::uint32_t line_bytes, const std::uint8_t* data) const {
  for (std::uint32_t w = 0; w < line_bytes; w += 4) {
    Addr wa = line_addr + w;
    bool any = false;
    for (unsigned b = 0; b < 4; ++b) any |= bytes.test(w + b);
    if (!any) continue;
    std::uint32_t old_v = committed_.read_word(wa);
    auto it = kernel_.find(wa);
    std::uint32_t new_v = store_word(wa, kernel_seq_);
    for (unsigned b = 0; b < 4; ++b) {
      if (!bytes.test(w + b)) continue;
      std::uint8_t got = data[w + b];
      std::uint8_t o = static_cast<std::uint8_t>(old_v >> (8 * b));
      if (got == o) continue;
      if (it != kernel_.end()) {
        if ((it->second.stored_bytes >> b) & 1u) {
          if (got == static_cast<std::uint8_t>(new_v >> (8 * b))) continue;
        }
        if (it->second.atomic_adds) continue;  // word updated atomically: checked at kernel end
      }
      std::ostringstream os;
      os << "load of byte 0x" << std::hex << (wa + b) << " returned 0x" << unsigned(got)
         << ", expected 0x" << unsigned(o);
      if (it != kernel_.end() && ((it->second.stored_bytes >> b) & 1u))
        os << " or 0x" << unsigned(static_cast<std::uint8_t>(new_v >> (8 * b)));
      return os.str();
    }
  }
  return {};
}

namespace {
std::uint32_t merge_stored(std::uint32_t v, std::uint32_t stored_value, std::uint8_t stored) {
  for (unsigned b = 0; b < 4; ++b)
    if ((stored >> b) & 1u) {
      v &= ~(0xffu << (8 * b));
      v |= stored_value & (0xffu << (8 * b));
    }
  return v;
}
}  // namespace

bool OrderDependentWord::feasible(std::uint32_t v, bool all_adds_done) const {
  // Before any store lands only adds have changed the word.
  if (!all_adds_done && v - base <= adds) return true;
  // j adds land before the last store, which leaves merge(base + j, stored); the others after
  // it. Differences are modular, like the hardware adder.
  for (std::uint32_t j = 0; j <= adds; ++j) {
    const std::uint32_t d = v - merge_stored(base + j, stored_value, stored);
    if (all_adds_done ? d == adds - j : d <= adds - j) return true;
  }
  return false;
}

std::string GoldenMemory::check_atomic(Addr word_addr, std::uint32_t old_value,
                                       std::uint32_t count) const {
  std::uint32_t base = committed_.read_word(word_addr);
  auto it = kernel_.find(word_addr);
  std::uint32_t issued = it == kernel_.end() ? 0 : it->second.atomic_adds;
  if (issued < count) return "atomic on an address with fewer adds issued than it carries";
  // A word this kernel also stored may hold the stored bytes before any of the adds (program
  // order store-then-atomic in one thread) as well as its kernel-start value.
  if (it != kernel_.end() && it->second.stored_bytes) {
    const OrderDependentWord w{word_addr, it->second.stored_bytes, base,
                               store_word(word_addr, kernel_seq_), issued - count};
    if (w.feasible(old_value, false)) return {};
  }
  std::uint32_t delta = old_value - base;  // modular: wraps like the hardware adder
  if (delta > issued - count) {
    std::ostringstream os;
    os << "atomic on 0x" << std::hex << word_addr << " returned 0x" << old_value << ", expected 0x"
       << base << " + [0, " << std::dec << (issued >= count ? issued - count : 0) << "]";
    return os.str();
  }
  return {};
}

std::vector<std::pair<Addr, std::uint32_t>> GoldenMemory::end_kernel(
    std::vector<OrderDependentWord>* order_dependent) {
  std::vector<std::pair<Addr, std::uint32_t>> out;
  out.reserve(kernel_.size());
  for (const auto& kv : kernel_) {
    Addr wa = kv.first;
    const KernelWord& k = kv.second;
    std::uint32_t v = committed_.read_word(wa);
    if (k.stored_bytes && k.atomic_adds) {
      if (order_dependent)
        order_dependent->push_back(
            {wa, k.stored_bytes, v, store_word(wa, kernel_seq_), k.atomic_adds});
      continue;
    }
    if (k.stored_bytes) v = merge_stored(v, store_word(wa, kernel_seq_), k.stored_bytes);
    v += k.atomic_adds;
    committed_.write_word(wa, v);
    out.emplace_back(wa, v);
  }
  kernel_.clear();
  return out;
}

}  // namespace locsim
