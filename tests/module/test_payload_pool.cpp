// The payload pool (payload_pool.h): payloads built ahead with reserve_more() are handed out
// before the pool grows, each fresh, and come back on release. No elaboration.
#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "tlm_components/payload_pool.h"

using namespace locsim;

TEST_CASE("payload pool: reserve_more() builds free payloads that allocate() uses before growing") {
  PayloadPool pool;
  pool.reserve_more(70);  // more than one chunk of 64
  pool.reserve_more(10);  // a second share adds to the first
  CHECK(pool.pool_size() == 80);
  CHECK(pool.in_use() == 0);
  CHECK(pool.live().empty());

  std::vector<tlm::tlm_generic_payload*> held;
  std::set<tlm::tlm_generic_payload*> distinct;
  for (int i = 0; i < 80; ++i) {
    tlm::tlm_generic_payload* gp = pool.allocate();
    CHECK(gp->get_ref_count() == 1);
    CHECK(gp->get_data_ptr() != nullptr);
    CHECK(gpu_ext(*gp).id == static_cast<std::uint64_t>(i + 1));
    held.push_back(gp);
    distinct.insert(gp);
  }
  CHECK(distinct.size() == 80);
  CHECK(pool.pool_size() == 80);  // no growth within the reserve
  CHECK(pool.in_use() == 80);

  held.push_back(pool.allocate());  // the 81st grows the pool by one
  CHECK(pool.pool_size() == 81);
  CHECK(pool.live().size() == 81);

  for (tlm::tlm_generic_payload* gp : held) gp->release();
  CHECK(pool.in_use() == 0);
  CHECK(pool.allocated_total() == 81);
  // A released payload is reused, not a new one built.
  tlm::tlm_generic_payload* again = pool.allocate();
  CHECK(distinct.count(again) + (again == held.back() ? 1 : 0) == 1);
  CHECK(pool.pool_size() == 81);
  again->release();
}
