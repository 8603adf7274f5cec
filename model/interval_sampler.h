// Time series of a run: every `--sample-interval` core cycles, the change of the main counters
// since the previous sample, as one CSV row (IPC, L1/L2 hit rates, NoC and DRAM bandwidth, CTAs),
// and the transactions each kind of block holds at that moment (its queues' occupancy). Reads
// the statistics registry and the caller's counts only, so sampling cannot change a simulated
// number.
#pragma once
#include <cstdint>
#include <ostream>

#include "model/stats.h"
#include "model/types.h"

namespace locsim {

class IntervalSampler {
 public:
  // `core_hz` converts cycles to seconds for the bandwidth columns.
  IntervalSampler(std::ostream& out, double core_hz);
  // Transactions held per kind of block at the sample (payloads in flight by holder).
  struct Occupancy {
    std::uint64_t sm = 0, l1d = 0, noc = 0, l2 = 0, dram = 0, link = 0, other = 0;
    std::uint64_t total() const { return sm + l1d + noc + l2 + dram + link + other; }
    // Adds one transaction held by the block of this instance name (gpu.l1d3, gpu.l2_8, ...).
    void add(const char* block);
  };
  // One row for (previous sample, now]; nothing when no cycle has passed. The first call also
  // writes the header.
  void sample(const StatRegistry& stats, Cycle now, const Occupancy& held);
  void sample(const StatRegistry& stats, Cycle now) { sample(stats, now, Occupancy()); }
  std::uint64_t rows() const { return rows_; }

  static const char* header();

 private:
  struct Totals {
    std::uint64_t warp_insts = 0, l1_acc = 0, l1_hits = 0, l2_acc = 0, l2_hits = 0, noc_bytes = 0,
                  dram_bytes = 0, launched = 0, completed = 0;
  };
  static Totals read(const StatRegistry& s);

  std::ostream& out_;
  double core_hz_;
  Totals prev_;
  Cycle prev_cycle_ = 0;
  bool started_ = false;
  std::uint64_t rows_ = 0;
};

}  // namespace locsim
