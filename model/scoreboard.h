// A warp's scoreboard: the destination registers of its outstanding global loads (and atomics
// that return a value). An instruction may issue only when it neither reads nor writes a pending
// register (RAW and WAW), as in GPGPU-Sim's Scoreboard::checkCollision; a load's registers are
// released when every line request of that load has returned. Independent loads therefore overlap
// and a warp stalls at the first instruction that needs a loaded value, not at the load.
//
// Two conservative escapes keep an instruction without register information correct:
// WarpInst::wait_all_loads (waits until no load is outstanding: the built-in workloads' consumer
// rule, see stimuli/warp_inst_builder.h) and a blocking load (reserve(..., blocks_all = true)),
// which stalls every later instruction of the warp until it returns (sm.scoreboard = block-all,
// the model before issue 15). Exit always waits for every outstanding load. No SystemC here.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/workload/kernel.h"

namespace locsim {

class Scoreboard {
 public:
  // Room for kInitialEntries outstanding loads from the start: a warp slot's scoreboard then
  // does not grow (reallocate) while the run touches new slots; more loads still grow it.
  static constexpr std::size_t kInitialEntries = 4;
  Scoreboard() { entries_.reserve(kInitialEntries); }

  // Whether `in` may issue now (register hazards and the two waits above). The tests without
  // registers inline at the caller (once per fetched instruction), the register scan not.
  [[gnu::always_inline]] bool ready(const WarpInst& in) const {
    // Nothing outstanding: nothing blocks and no register is pending (both come with a load).
    if (!outstanding_) return true;
    if (blocking_ || in.wait_all_loads || in.op == WarpOp::Exit) return false;
    return !any_pending_ || registers_free(in);
  }
  // No source or destination register of `in` is pending.
  bool registers_free(const WarpInst& in) const {
    for (unsigned i = 0; i < in.n_src; ++i)
      if (pending(in.src[i])) return false;
    for (unsigned i = 0; i < in.n_dst; ++i)
      if (pending(in.dst[i])) return false;
    return true;
  }

  // Records load/atomic `in`, issued as `lines` (>= 1) line requests, and returns the handle to
  // pass to line_returned(). Its destination registers become pending (RZ = 255 never does).
  std::uint32_t reserve(const WarpInst& in, std::uint32_t lines, bool blocks_all) {
    std::uint32_t slot = free_head_;
    if (slot != kNone) {
      free_head_ = entries_[slot].next_free;
    } else {
      slot = static_cast<std::uint32_t>(entries_.size());
      entries_.emplace_back();
    }
    Entry& e = entries_[slot];
    e.lines_left = lines;
    e.blocks_all = blocks_all;
    e.n_dst = 0;
    for (unsigned i = 0; i < in.n_dst && i < in.dst.size(); ++i) {
      if (in.dst[i] == kZeroRegister) continue;
      e.dst[e.n_dst++] = in.dst[i];
      regs_[in.dst[i] >> 6] |= std::uint64_t{1} << (in.dst[i] & 63);
      any_pending_ = true;
    }
    ++outstanding_;
    blocking_ += blocks_all;
    return slot;
  }

  // One line request of the instruction behind `slot` returned; true when that was its last one
  // (its registers are free again).
  bool line_returned(std::uint32_t slot) {
    Entry& e = entries_[slot];
    if (--e.lines_left) return false;
    for (unsigned i = 0; i < e.n_dst; ++i)
      regs_[e.dst[i] >> 6] &= ~(std::uint64_t{1} << (e.dst[i] & 63));
    any_pending_ = (regs_[0] | regs_[1] | regs_[2] | regs_[3]) != 0;  // once, not per register
    blocking_ -= e.blocks_all;
    --outstanding_;
    e.next_free = free_head_;  // the free slots: a stack through the entries
    free_head_ = slot;
    return true;
  }

  // Back to the empty state (a new warp in the slot), keeping the buffers' capacity.
  void reset() {
    regs_ = {};
    any_pending_ = false;
    outstanding_ = blocking_ = 0;
    entries_.clear();
    free_head_ = kNone;
  }

  // Load instructions issued and not yet complete.
  std::uint32_t outstanding() const { return outstanding_; }
  bool pending(std::uint8_t r) const { return (regs_[r >> 6] >> (r & 63)) & 1u; }

  static constexpr std::uint8_t kZeroRegister = 255;  // RZ in SASS traces (NVBit numbers it 255)

 private:
  struct Entry {
    std::uint32_t lines_left = 0;
    bool blocks_all = false;
    std::uint8_t n_dst = 0;
    std::array<std::uint8_t, 4> dst{};
    std::uint32_t next_free = 0;  // while free: the next free slot
  };
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::array<std::uint64_t, 4> regs_{};  // R0..R255, one bit each
  bool any_pending_ = false;
  std::uint32_t outstanding_ = 0, blocking_ = 0;
  std::vector<Entry> entries_;
  std::uint32_t free_head_ = kNone;  // the last freed slot
};

}  // namespace locsim
