// NoC packet sizes (packet_size.h): one packet per request, and one per 32 B sector
// (noc.sector_packets). Pure functions of the payload; no elaboration.
#include <catch2/catch.hpp>

#include "tlm_components/gpu_extension.h"
#include "tlm_components/packet_size.h"

using namespace locsim;

namespace {
// A 128 B line request of `kind` touching `bytes`, with the sector mask its sender would set.
struct Packet {
  tlm::tlm_generic_payload gp;
  GpuExtension* e = new GpuExtension;
  Packet(AccessKind kind, const ByteMask& bytes) {
    gp.set_data_length(128);
    e->kind = kind;
    e->bytes = bytes;
    e->sector_mask = bytes.sector_mask(kTransferSectorBytes);
    gp.set_extension(e);
  }
  ~Packet() { gp.free_all_extensions(); }
};

ByteMask range(unsigned first, unsigned count) {
  ByteMask m;
  m.set_range(first, count);
  return m;
}
}  // namespace

TEST_CASE("one packet per request: header plus data in whole flits") {
  Packet load(AccessKind::Load, range(0, 128));
  CHECK(noc_request_flits(load.gp, 8, 32, false) == 1);
  CHECK(noc_reply_flits(load.gp, 8, 32, false) == 5);  // 136 B
  CHECK(noc_reply_flits(load.gp, 8, 40, false) == 4);
  Packet sector(AccessKind::Load, range(32, 32));
  CHECK(noc_reply_flits(sector.gp, 8, 32, false) == 2);  // only the sector asked for
  Packet store(AccessKind::Store, range(0, 128));
  CHECK(noc_request_flits(store.gp, 8, 32, false) == 5);
  CHECK(noc_reply_flits(store.gp, 8, 32, false) == 1);  // acknowledgement: a header
}

TEST_CASE("per-sector packets: one header per 32 B sector the request moves") {
  Packet load(AccessKind::Load, range(0, 128));
  CHECK(noc_request_flits(load.gp, 8, 32, true) == 4);
  CHECK(noc_reply_flits(load.gp, 8, 32, true) == 8);  // 4 x (8 + 32 B) in 32 B flits
  CHECK(noc_reply_flits(load.gp, 8, 40, true) == 4);  // Accel-Sim's 40 B flits: one each
  Packet two(AccessKind::Load, range(32, 64));
  CHECK(noc_request_flits(two.gp, 8, 32, true) == 2);
  CHECK(noc_reply_flits(two.gp, 8, 40, true) == 2);
  Packet store(AccessKind::Store, range(0, 128));
  CHECK(noc_request_flits(store.gp, 8, 32, true) == 8);
  CHECK(noc_reply_flits(store.gp, 8, 32, true) == 4);  // an acknowledgement per sector
  // A store writing 4 bytes in sectors 0 and 3: two packets of header + 4 B.
  ByteMask sparse = range(0, 4);
  sparse |= range(100, 4);
  Packet partial(AccessKind::Store, sparse);
  CHECK(noc_request_flits(partial.gp, 8, 8, true) == 4);
  CHECK(noc_reply_flits(partial.gp, 8, 8, true) == 2);
  CHECK(noc_request_flits(partial.gp, 8, 8, false) == 2);  // one packet: 8 + 8 B
  CHECK(noc_reply_flits(partial.gp, 8, 8, false) == 1);
}
