// noc.sector_packets end to end (issue 15, the per-sector packets of the Accel-Sim comparison):
// with 40 B flits and an 8 B header every 32 B sector is one flit each way, so a streaming
// kernel's request and reply flits both equal the sectors it moves. One elaboration per
// TEST_CASE (own process).
#include <catch2/catch.hpp>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

namespace {
const WorkloadArgs kVec{{"n", "16384"}};
// vecadd reads a and b and writes c, 4 B per element: 3 x 16384 x 4 B in 32 B sectors.
constexpr std::uint64_t kSectors = 3 * 16384 * 4 / 32;
}  // namespace

TEST_CASE("volta: per-sector packets carry one flit per sector each way", "[platform][noc]") {
  Run r = run("volta", "vecadd", kVec, {{"noc.flit_bytes", "40"}, {"noc.sector_packets", "true"}});
  common_checks(r);
  CHECK(r.out.verified_words == 16384);
  CHECK(r.total("noc", "request_flits") == kSectors);
  CHECK(r.total("noc", "reply_flits") == kSectors);
  CHECK(r.total("noc", "requests") < kSectors);  // a request moves several sectors
}

TEST_CASE("volta: one packet per request by default", "[platform][noc]") {
  Run r = run("volta", "vecadd", kVec, {{"noc.flit_bytes", "40"}});
  common_checks(r);
  // Load requests are a header flit each, store acknowledgements too; load replies and store
  // requests carry their sectors after one header: fewer flits than one per sector each way.
  CHECK(r.total("noc", "request_flits") < kSectors);
  CHECK(r.total("noc", "reply_flits") < kSectors);
  CHECK(r.total("noc", "request_flits") + r.total("noc", "reply_flits") > kSectors);
}

TEST_CASE("mesh: per-sector packets carry one flit per sector each way", "[platform][noc]") {
  Run r = run("mesh", "vecadd", kVec, {{"noc.flit_bytes", "40"}, {"noc.sector_packets", "true"}});
  common_checks(r);
  CHECK(r.total("noc", "request_flits") == kSectors);
  CHECK(r.total("noc", "reply_flits") == kSectors);
}
