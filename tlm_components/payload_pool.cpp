#include "tlm_components/payload_pool.h"

#include <cstring>
#include <new>

namespace locsim {

PayloadPool::~PayloadPool() {
  for (std::size_t i = 0; i < all_.size(); ++i) chunks_[i / kChunk][i % kChunk].~Slot();
  for (Slot* c : chunks_) ::operator delete(c);
}

PayloadPool::Slot* PayloadPool::grow() {
  static_assert(alignof(Slot) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                "chunks come from the default operator new");
  const std::size_t i = all_.size();
  if (i % kChunk == 0) chunks_.push_back(static_cast<Slot*>(::operator new(kChunk * sizeof(Slot))));
  Slot* s = new (&chunks_.back()[i % kChunk]) Slot(this);
  all_.push_back(s);
  s->next_free = free_;
  free_ = s;
  return s;
}

void PayloadPool::reserve_more(std::size_t n) {
  // No exact reserve() of all_: called once per SM, it would copy it each time.
  for (std::size_t i = 0; i < n; ++i) grow();
}

namespace {
// A traced payload's end, out of line: free() then calls nothing but its last call.
__attribute__((noinline)) void retire_and_reset(Timeline* t, PooledPayload* s) {
  t->retired(s->ext);
  s->reset();
}
}  // namespace

void PayloadPool::free(tlm::tlm_generic_payload* gp) {
  Slot* s = static_cast<Slot*>(gp);
  sc_assert(s->busy);
  s->busy = false;
  --in_use_;
  s->next_free = free_;
  free_ = s;
  // The one call last, as a jump: no stack frame around it (about 8 host instructions per
  // payload). Neither call takes a payload from the pool.
  if (Timeline* t = Timeline::active()) return retire_and_reset(t, s);
  s->reset();  // drops auto extensions only; ours stays attached
}

std::vector<tlm::tlm_generic_payload*> PayloadPool::live() const {
  std::vector<tlm::tlm_generic_payload*> out;
  for (Slot* s : all_)
    if (s->busy) out.push_back(s);
  return out;
}

void copy_masked(std::uint8_t* dst, const std::uint8_t* src, const ByteMask& m, unsigned n) {
  for (unsigned w = 0; w < 2 && w * 64 < n; ++w) {
    std::uint64_t bits = m.w[w];
    if (bits == ~std::uint64_t{0} && (w + 1) * 64 <= n) {
      std::memcpy(dst + w * 64, src + w * 64, 64);
      continue;
    }
    while (bits) {
      unsigned b = static_cast<unsigned>(__builtin_ctzll(bits));
      bits &= bits - 1;
      unsigned i = w * 64 + b;
      if (i < n) dst[i] = src[i];
    }
  }
}

}  // namespace locsim
