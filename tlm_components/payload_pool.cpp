#include "tlm_components/payload_pool.h"

#include <cstring>

namespace locsim {

PayloadPool::~PayloadPool() {
  for (auto& s : all_) {
    // Extensions were attached with set_extension: detach and delete them ourselves.
    s->clear_extension(s->ext);
    delete s->ext;
    s->clear_extension(s->route);
    delete s->route;
  }
}

PayloadPool::Slot* PayloadPool::grow() {
  all_.push_back(std::make_unique<Slot>(this));
  Slot* s = all_.back().get();
  s->ext = new GpuExtension();
  s->set_extension(s->ext);
  s->route = new RouteExtension();
  s->set_extension(s->route);
  free_.push_back(s);
  return s;
}

void PayloadPool::free(tlm::tlm_generic_payload* gp) {
  Slot* s = static_cast<Slot*>(gp);
  sc_assert(s->busy);
  if (Timeline* t = Timeline::active()) t->retired(*s->ext);
  s->busy = false;
  --in_use_;
  s->reset();  // drops auto extensions only; ours stays attached
  free_.push_back(s);
}

std::vector<tlm::tlm_generic_payload*> PayloadPool::live() const {
  std::vector<tlm::tlm_generic_payload*> out;
  for (auto& s : all_)
    if (s->busy) out.push_back(s.get());
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
