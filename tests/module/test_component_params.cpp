// Every block declares its parameters next to it, with the configuration struct's own default as
// the parameter's default: a configuration built from the defaults alone equals the structs'
// defaults field by field (the default is written once).
#include <catch2/catch.hpp>

#include "model/params.h"
#include "platforms/gpu_params.h"

using namespace locsim;

TEST_CASE("Parameter defaults are the configuration structs' defaults", "[params][defaults]") {
  ParamRegistry p;
  declare_gpu_params(p);
  const GpuConfig c = make_gpu_config(p);
  const GpuConfig g;
  CHECK(c.num_sms == g.num_sms);
  CHECK(c.topology == g.topology);
  CHECK(c.watchdog_cycles == g.watchdog_cycles);
  CHECK(c.watchdog_interval == g.watchdog_interval);

  const SmConfig sm;
  CHECK(c.sm.schedulers == sm.schedulers);
  CHECK(c.sm.ldst_queue == sm.ldst_queue);
  CHECK(c.sm.shared_latency == sm.shared_latency);
  CHECK(c.sm.clock_hz == sm.clock_hz);
  CHECK(c.sm.resources.shared_mem_bytes == sm.resources.shared_mem_bytes);
  CHECK(c.sm.resources.max_threads == sm.resources.max_threads);

  const L1Config l1;
  CHECK(c.l1.geometry.sets == l1.geometry.sets);
  CHECK(c.l1.geometry.ways == l1.geometry.ways);
  CHECK(c.l1.geometry.sector_bytes == l1.geometry.sector_bytes);
  CHECK(c.l1.hit_latency == l1.hit_latency);
  CHECK(c.l1.mshr_entries == l1.mshr_entries);
  CHECK(c.l1.miss_queue == l1.miss_queue);

  const L2Config l2;
  CHECK(c.l2.geometry.sets == l2.geometry.sets);
  CHECK(c.l2.geometry.ways == l2.geometry.ways);
  CHECK(c.l2.geometry.sector_bytes == l2.geometry.sector_bytes);
  CHECK(c.l2.rop_latency == l2.rop_latency);
  CHECK(c.l2.tag_latency == l2.tag_latency);
  CHECK(c.l2.data_latency == l2.data_latency);
  CHECK(c.l2.clock_hz == l2.clock_hz);

  const CrossbarConfig x;
  CHECK(c.noc.flit_bytes == x.flit_bytes);
  CHECK(c.noc.latency == x.latency);
  CHECK(c.noc.response_fifo == x.response_fifo);
  CHECK(c.noc.clock_hz == x.clock_hz);

  const MemoryControllerConfig mc;
  const DramTiming t;
  CHECK(c.mc.atom_bytes == mc.atom_bytes);
  CHECK(c.mc.queue == mc.queue);
  CHECK(c.mc.controller_latency == mc.controller_latency);
  CHECK(c.mc.phy_latency == mc.phy_latency);
  CHECK(c.mc.clock_hz == mc.clock_hz);
  CHECK(c.mc.timing.tCL == t.tCL);
  CHECK(c.mc.timing.tRC == t.tRC);
  CHECK(c.mc.timing.tRTW == t.tRTW);
  const AddressMapConfig m;
  CHECK(c.address_map.channels == m.channels);
  CHECK(c.address_map.row_bytes == m.row_bytes);

  const DispatcherConfig d;
  CHECK(c.dispatcher.policy == d.policy);
  CHECK(c.dispatcher.launch_latency == d.launch_latency);
  // No mechanism is on by default.
  CHECK(c.mechanisms.empty());
}
