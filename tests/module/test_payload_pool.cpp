// The payload pool (payload_pool.h): payloads built ahead with reserve_more() are handed out
// before the pool grows, each fresh, and come back on release. No elaboration.
#include <catch2/catch.hpp>
#include <set>
#include <string>
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

TEST_CASE("payload pool: a reused payload gets a creator's fields and defaults for the rest") {
  PayloadPool pool;
  // Dirty every field, then give the payload back.
  tlm::tlm_generic_payload* gp = pool.allocate();
  GpuExtension& e = gpu_ext(*gp);
  gp->set_byte_enable_ptr(PayloadPool::byte_enables(gp));
  gp->set_byte_enable_length(128);
  gp->set_response_status(tlm::TLM_OK_RESPONSE);
  e.sm = 3;
  e.cluster = 1;
  e.warp = 7;
  e.cta = 9;
  e.kernel = 2;
  e.data_structure = 4;
  e.kind = AccessKind::Atomic;
  e.sector_mask = 0xf;
  e.bytes.set(5);
  e.demand.set(6);
  e.bypass_rank = 5;
  e.bypass_population = 8;
  e.requesters.push_back(3);
  e.word_count[1] = 2;
  e.issue_ps = 100;
  e.owner = &pool;
  e.owner_tag = 11;
  e.parent = 12;
  e.noc_target = 1;
  e.where = "somewhere";
  gp->release();

  PayloadPool::Request r;
  r.command = tlm::TLM_WRITE_COMMAND;
  r.address = 0x1000;
  r.length = 128;
  r.ext.sm = 5;
  r.ext.kernel = 1;
  r.ext.kind = AccessKind::Load;
  r.ext.sector_mask = 0x3;
  r.ext.bytes.set(1);
  r.ext.sm_requests = true;
  r.ext.parent = 4;
  tlm::tlm_generic_payload* f = pool.allocate(r);
  CHECK(f == gp);  // the same payload, reused
  const GpuExtension& fe = gpu_ext(*f);
  CHECK(f->get_command() == tlm::TLM_WRITE_COMMAND);
  CHECK(f->get_address() == 0x1000);
  CHECK(f->get_data_length() == 128);
  CHECK(f->get_streaming_width() == 128);
  CHECK(f->get_byte_enable_ptr() == nullptr);
  CHECK(f->get_byte_enable_length() == 0);
  CHECK(f->get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE);
  CHECK(f->get_ref_count() == 1);
  CHECK(fe.id == 2);
  CHECK(fe.sm == 5);
  CHECK(fe.cluster == 0);
  CHECK(fe.warp == 0);
  CHECK(fe.cta == 0);
  CHECK(fe.kernel == 1);
  CHECK(fe.data_structure == 0xffff);
  CHECK(fe.kind == AccessKind::Load);
  CHECK(fe.sector_mask == 0x3);
  CHECK(fe.bytes.test(1));
  CHECK(!fe.bytes.test(5));
  CHECK(!fe.demand.any());
  CHECK(fe.bypass_rank == 0);
  CHECK(fe.bypass_population == 1);
  REQUIRE(fe.requesters.size() == 1);
  CHECK(fe.requesters[0] == 5);
  CHECK(fe.word_count[1] == 0);
  CHECK(fe.issue_ps == 0);
  CHECK(fe.owner == nullptr);
  CHECK(fe.owner_tag == 0);
  CHECK(fe.parent == 4);
  CHECK(fe.noc_target == -1);
  CHECK(std::string(fe.where) == "pool");
  f->release();

  // allocate_request(): the creator's fields are its to set; the rest are reset.
  tlm::tlm_generic_payload* q = pool.allocate_request();
  const GpuExtension& qe = gpu_ext(*q);
  CHECK(q == gp);
  CHECK(qe.id == 3);
  CHECK(qe.requesters.empty());
  CHECK(!qe.demand.any());
  CHECK(qe.word_count[1] == 0);
  CHECK(qe.parent == 0);
  CHECK(qe.noc_target == -1);
  CHECK(std::string(qe.where) == "pool");
  CHECK(q->get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE);
  q->release();
}
