// Packet sizes on the on-chip networks, shared by every Interconnect (crossbar, mesh): a header
// plus the data the packet carries, in whole flits.
#pragma once
#include <cstdint>
#include <systemc>
#include <tlm>

namespace locsim {

// Request: header, plus the written bytes of stores and atomics.
// Reply: header, plus the data of loads/prefetches (only the 32 B sectors asked for when the
// request names sectors) and the bytes of atomics; store acknowledgements are a header alone.
// per_sector (noc.sector_packets): a request travels as one packet per 32 B sector it moves, as
// GPGPU-Sim's memory partitions and sectored L1s send one mem_fetch per sector, each with its
// own header: a load request is one header per sector, a store one header plus that sector's
// bytes per stored sector, and its acknowledgement one header per stored sector.
std::uint32_t noc_request_flits(const tlm::tlm_generic_payload& gp, std::uint32_t header_bytes,
                                std::uint32_t flit_bytes, bool per_sector);
std::uint32_t noc_reply_flits(const tlm::tlm_generic_payload& gp, std::uint32_t header_bytes,
                              std::uint32_t flit_bytes, bool per_sector);
// The same, given gp's extension (a caller that holds it saves the lookup).
struct GpuExtension;
std::uint32_t noc_request_flits(const tlm::tlm_generic_payload& gp, const GpuExtension& e,
                                std::uint32_t header_bytes, std::uint32_t flit_bytes,
                                bool per_sector);
std::uint32_t noc_reply_flits(const tlm::tlm_generic_payload& gp, const GpuExtension& e,
                              std::uint32_t header_bytes, std::uint32_t flit_bytes,
                              bool per_sector);

}  // namespace locsim
