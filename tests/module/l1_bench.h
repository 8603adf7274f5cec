// An L1D between a test initiator and a test memory, with a protocol checker on each side, at
// 1 ns cycles. Shared by the L1D module tests. One per test process.
#pragma once
#include <memory>

#include "harness.h"
#include "tlm_components/l1_data_cache.h"
#include "tlm_components/protocol_checker.h"

namespace locsim::test {

struct L1Bench {
  SimContext ctx;
  TestInitiator sm{"sm"};
  ProtocolChecker c1{"check_up"};
  std::unique_ptr<L1DataCache> l1;
  ProtocolChecker c2{"check_down"};
  TestMemory memory{"memory", sc_core::sc_time(100, sc_core::SC_NS)};
  explicit L1Bench(L1Config cfg, bool check_data = true) {
    ctx.check_data = check_data;
    cfg.clock_hz = 1e9;  // 1 ns cycles keep the arithmetic readable
    l1 = std::make_unique<L1DataCache>("l1d", cfg, ctx);
    sm.socket.bind(c1.target);
    c1.initiator.bind(l1->cpu);
    l1->mem.bind(c2.target);
    c2.initiator.bind(memory.socket);
  }
  std::uint64_t stat(const char* n) { return ctx.stats.total("l1d", n); }
};

}  // namespace locsim::test
