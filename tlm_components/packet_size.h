// Packet sizes on the on-chip networks, shared by every Interconnect (crossbar, mesh): a header
// plus the data the packet carries, in whole flits.
#pragma once
#include <cstdint>
#include <systemc>
#include <tlm>

namespace locsim {

// Request: header, plus the written bytes of stores and atomics.
std::uint32_t noc_request_flits(const tlm::tlm_generic_payload& gp, std::uint32_t header_bytes,
                                std::uint32_t flit_bytes);
// Reply: header, plus the data of loads/prefetches (only the 32 B sectors asked for when the
// request names sectors) and the bytes of atomics; store acknowledgements are a header alone.
std::uint32_t noc_reply_flits(const tlm::tlm_generic_payload& gp, std::uint32_t header_bytes,
                              std::uint32_t flit_bytes);

}  // namespace locsim
