// Parameters of the crossbar (noc.*, clock.noc, cluster.locality_window), declared from
// CrossbarConfig's own defaults.
#include "model/params.h"
#include "tlm_components/crossbar.h"

namespace locsim {

void declare_crossbar_params(ParamRegistry& p) {
  using T = ParamType;
  const CrossbarConfig d;
  p.declare("clock.noc", T::Frequency, frequency_text(d.clock_hz), "Hz", "crossbar clock");
  p.declare("noc.flit_bytes", T::Bytes, bytes_text(d.flit_bytes), "bytes",
            "channel width: bytes per flit per cycle");
  p.declare("noc.header_bytes", T::Bytes, bytes_text(d.header_bytes), "bytes",
            "packet header (address + command)");
  p.declare("noc.sector_packets", T::Bool, d.sector_packets ? "true" : "false", "",
            "one packet (header) per 32 B sector a request moves, as GPGPU-Sim's per-sector "
            "mem_fetch; false: one packet per request");
  p.declare("noc.latency", T::UInt, std::to_string(d.latency), "cycles",
            "switch traversal after the last flit");
  p.declare("noc.input_buffer", T::UInt, std::to_string(d.input_buffer), "packets",
            "input FIFO per injection port");
  p.declare("noc.output_buffer", T::UInt, std::to_string(d.output_buffer), "packets",
            "output FIFO per L2 sub-partition");
  p.declare("noc.response_fifo", T::UInt, std::to_string(d.response_fifo), "packets",
            "response FIFO per cluster port");
  p.declare("cluster.locality_window", T::UInt, std::to_string(d.locality_window), "cycles",
            "window W of the intra-cluster locality metric (seed 001 eq. 1; 0: off)");
}

CrossbarConfig crossbar_config_from_params(const ParamRegistry& p) {
  CrossbarConfig c;
  c.flit_bytes = p.get_bytes_u32("noc.flit_bytes");
  if (!c.flit_bytes) throw ConfigError("key 'noc.flit_bytes': must be at least 1");
  c.header_bytes = p.get_bytes_u32("noc.header_bytes");
  c.sector_packets = p.get_bool("noc.sector_packets");
  c.latency = p.get_u32("noc.latency");
  c.input_buffer = p.get_u32("noc.input_buffer", 1);
  c.output_buffer = p.get_u32("noc.output_buffer", 1);
  c.response_fifo = p.get_u32("noc.response_fifo", 1);
  c.clock_hz = p.get_frequency_hz("clock.noc");
  c.locality_window = p.get_uint("cluster.locality_window");
  return c;
}

}  // namespace locsim
