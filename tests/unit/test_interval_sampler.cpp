// The interval sampler (model/interval_sampler.h): per-interval deltas and rates from the
// statistics registry, without the SystemC kernel.
#include <catch2/catch.hpp>
#include <sstream>

#include "model/interval_sampler.h"

using namespace locsim;

TEST_CASE("IntervalSampler: one row per interval with deltas, rates and bandwidths", "[sampler]") {
  StatRegistry s;
  Counter& wi = s.counter("gpu.sm0", "sm", "warp_insts", "insts", "");
  Counter& l1a = s.counter("gpu.l1d0", "l1d", "accesses", "accesses", "");
  Counter& l1h = s.counter("gpu.l1d0", "l1d", "hits", "hits", "");
  Counter& dr = s.counter("gpu.mc0", "dram", "read_bytes", "bytes", "");
  Counter& la = s.counter("gpu.dispatcher", "dispatcher", "ctas_launched", "CTAs", "");
  Counter& done = s.counter("gpu.sm0", "sm", "ctas_completed", "CTAs", "");
  std::ostringstream out;
  IntervalSampler smp(out, 1e9);  // 1 GHz: 1000 cycles = 1 us
  smp.sample(s, 0);               // header only: no cycle has passed
  wi += 2000;
  l1a += 100;
  l1h += 25;
  dr += 64000;
  la += 8;
  IntervalSampler::Occupancy held;
  for (const char* b : {"gpu.sm0", "gpu.l1d3", "gpu.l1d3", "gpu.noc", "gpu.l2_8", "gpu.mc4",
                        "gpu.link0_1", "gpu.icc2", "pool"})
    held.add(b);
  smp.sample(s, 1000, held);
  wi += 500;
  l1a += 10;
  l1h += 10;
  done += 8;
  smp.sample(s, 2000);
  smp.sample(s, 2000);  // no new cycle: no row
  CHECK(smp.rows() == 2);
  const std::string csv = out.str();
  std::istringstream in(csv);
  std::string header, r1, r2;
  std::getline(in, header);
  std::getline(in, r1);
  std::getline(in, r2);
  CHECK(header == IntervalSampler::header());
  // 2000 warp instructions in 1000 cycles; 25 of 100 L1 accesses hit; 64 KB in 1 us = 64 GB/s.
  CHECK(r1 == "0,1000,2000,2,100,0.25,0,0,0,0,64000,64,8,0,8,1,2,1,1,1,1,2,9");
  CHECK(r2 == "1000,2000,500,0.5,10,1,0,0,0,0,0,0,0,8,0,0,0,0,0,0,0,0,0");
}
