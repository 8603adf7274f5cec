#include "model/interval_sampler.h"

namespace locsim {

IntervalSampler::IntervalSampler(std::ostream& out, double core_hz)
    : out_(out), core_hz_(core_hz) {}

const char* IntervalSampler::header() {
  return "cycle_start,cycle_end,warp_insts,ipc,l1d_accesses,l1d_hit_rate,l2_accesses,"
         "l2_hit_rate,noc_bytes,noc_gbps,dram_bytes,dram_gbps,ctas_launched,ctas_completed,"
         "ctas_active,held_sm,held_l1d,held_noc,held_l2,held_dram,held_link,held_other,"
         "held_total";
}

IntervalSampler::Totals IntervalSampler::read(const StatRegistry& s) {
  Totals t;
  t.warp_insts = s.total("sm", "warp_insts");
  t.l1_acc = s.total("l1d", "accesses");
  t.l1_hits = s.total("l1d", "hits");
  t.l2_acc = s.total("l2", "accesses");
  t.l2_hits = s.total("l2", "hits");
  t.noc_bytes = s.total("noc", "bytes");
  t.dram_bytes = s.total("dram", "read_bytes") + s.total("dram", "write_bytes");
  t.launched = s.total("dispatcher", "ctas_launched");
  t.completed = s.total("sm", "ctas_completed");
  return t;
}

void IntervalSampler::Occupancy::add(const char* block) {
  std::string n = block ? block : "";
  const auto dot = n.rfind('.');
  if (dot != std::string::npos) n = n.substr(dot + 1);
  auto starts = [&n](const char* p) { return n.rfind(p, 0) == 0; };
  if (starts("sm"))
    ++sm;
  else if (starts("l1d"))
    ++l1d;
  else if (starts("noc"))
    ++noc;
  else if (starts("l2"))
    ++l2;
  else if (starts("mc"))
    ++dram;
  else if (starts("link"))
    ++link;
  else
    ++other;
}

void IntervalSampler::sample(const StatRegistry& stats, Cycle now, const Occupancy& held) {
  if (!started_) {
    out_ << header() << "\n";
    started_ = true;
  }
  if (now <= prev_cycle_) return;
  const Totals t = read(stats);
  const double cycles = double(now - prev_cycle_);
  const double seconds = core_hz_ > 0 ? cycles / core_hz_ : 0.0;
  auto rate = [](std::uint64_t hits, std::uint64_t acc) {
    return acc ? double(hits) / double(acc) : 0.0;
  };
  auto gbps = [seconds](std::uint64_t bytes) {
    return seconds > 0 ? double(bytes) / seconds / 1e9 : 0.0;
  };
  const std::uint64_t wi = t.warp_insts - prev_.warp_insts, l1 = t.l1_acc - prev_.l1_acc,
                      l2 = t.l2_acc - prev_.l2_acc, noc = t.noc_bytes - prev_.noc_bytes,
                      dram = t.dram_bytes - prev_.dram_bytes;
  out_ << prev_cycle_ << "," << now << "," << wi << "," << double(wi) / cycles << "," << l1 << ","
       << rate(t.l1_hits - prev_.l1_hits, l1) << "," << l2 << ","
       << rate(t.l2_hits - prev_.l2_hits, l2) << "," << noc << "," << gbps(noc) << "," << dram
       << "," << gbps(dram) << "," << t.launched - prev_.launched << ","
       << t.completed - prev_.completed << "," << t.launched - t.completed << "," << held.sm << ","
       << held.l1d << "," << held.noc << "," << held.l2 << "," << held.dram << "," << held.link
       << "," << held.other << "," << held.total() << "\n";
  prev_ = t;
  prev_cycle_ = now;
  ++rows_;
}

}  // namespace locsim
