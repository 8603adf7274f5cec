// Pooled generic payloads (tlm_mm_interface): every payload owns a line-sized data buffer, a
// byte-enable buffer, a GpuExtension and a RouteExtension, allocated once and recycled. The pool
// also knows which payloads are in flight, which the watchdog and the end-of-run conservation check
// use.
#pragma once
#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "tlm_components/gpu_extension.h"
#include "tlm_components/route_extension.h"

namespace locsim {

class PayloadPool : public tlm::tlm_mm_interface {
 public:
  static constexpr unsigned kMaxBytes = PooledPayload::kMaxBytes;

  PayloadPool() = default;
  ~PayloadPool() override;
  PayloadPool(const PayloadPool&) = delete;
  PayloadPool& operator=(const PayloadPool&) = delete;

  // A request as the block creating it describes it: allocate(const Request&) writes each field
  // of the payload and its extension once, from here or its default.
  struct Request {
    tlm::tlm_command command = tlm::TLM_READ_COMMAND;
    std::uint64_t address = 0;
    unsigned length = 0;        // data length and streaming width (bytes)
    bool byte_enables = false;  // the payload's byte-enable buffer attached, `length` bytes long
                                // (the caller fills it: byte_enables())
    GpuExtension::Init ext;
  };
  // A fresh payload with reference count 1 (the caller's), its data buffer attached, a new id, an
  // empty route and every other field as `r` says (allocate(): all defaults). The caller then
  // calls the extension's at() to record its first holder.
  // Inline: a few dozen stores, made about three times per transaction; growing the pool is not.
  [[gnu::always_inline]] tlm::tlm_generic_payload* allocate(const Request& r) {
    Slot* s = free_ ? free_ : grow();
    free_ = s->next_free;
    s->busy = true;
    ++in_use_;
    s->ext.init_fields(++next_id_, r.ext);
    s->route.clear();
    s->set_command(r.command);
    s->set_address(r.address);
    s->set_data_ptr(s->data);
    s->set_data_length(r.length);
    s->set_byte_enable_ptr(r.byte_enables ? s->byte_enable : nullptr);
    s->set_byte_enable_length(r.byte_enables ? r.length : 0);
    s->set_streaming_width(r.length);
    s->set_dmi_allowed(false);
    s->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    s->acquire();
    return s;
  }
  tlm::tlm_generic_payload* allocate() { return allocate(Request{}); }
  // allocate() for a creator that sets, right after and before anything reads the payload, its
  // command, address, data length, streaming width, byte-enable pointer and length and the
  // extension fields GpuExtension::reset_uncreated() names: those are left as the payload's
  // last user left them (the SM's line requests, whose values come from several objects).
  [[gnu::always_inline]] tlm::tlm_generic_payload* allocate_request() {
    Slot* s = free_ ? free_ : grow();
    free_ = s->next_free;
    s->busy = true;
    ++in_use_;
    s->ext.reset_uncreated(++next_id_);
    s->route.clear();
    s->set_data_ptr(s->data);
    s->set_dmi_allowed(false);
    s->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    s->acquire();
    return s;
  }
  void free(tlm::tlm_generic_payload* gp) override;
  // Creates n more free payloads now. Blocks call it at elaboration with a realistic share of
  // the payloads they keep in flight, so that a run staying within the sum constructs none while
  // it simulates (a new payload costs about 800 host instructions with its destruction at exit).
  void reserve_more(std::size_t n);

  std::uint64_t in_use() const { return in_use_; }
  std::uint64_t allocated_total() const { return next_id_; }
  std::size_t pool_size() const { return all_.size(); }
  // The byte-enable buffer (kMaxBytes) that belongs to a payload from this pool.
  static std::uint8_t* byte_enables(tlm::tlm_generic_payload* gp) {
    return static_cast<Slot*>(gp)->byte_enable;
  }
  // Payloads currently in flight (for diagnostics).
  std::vector<tlm::tlm_generic_payload*> live() const;

 private:
  using Slot = PooledPayload;
  // Payloads are carved from chunks of kChunk, constructed one by one as the pool grows: growing
  // and tearing down the pool costs one allocation per payload (the generic payload's own
  // extension array) instead of five.
  static constexpr unsigned kChunk = 64;
  // A new payload with its extensions attached, pushed on the free list (returns it).
  Slot* grow();
  std::vector<Slot*> all_;     // every payload, in creation order
  std::vector<Slot*> chunks_;  // raw storage for kChunk payloads each
  // The free payloads, last freed first, linked through PooledPayload::next_free (a push or a
  // pop is two stores, no capacity test).
  Slot* free_ = nullptr;
  std::uint64_t in_use_ = 0;
  std::uint64_t next_id_ = 0;
};

// Copies line data bytes selected by a mask between payload buffers.
void copy_masked(std::uint8_t* dst, const std::uint8_t* src, const ByteMask& m, unsigned n);

}  // namespace locsim
