#include "platforms/topology.h"

#include "model/params.h"
#include "platforms/topologies/clustered_topology.h"
#include "platforms/topologies/crossbar_topology.h"
#include "platforms/topologies/mcm_topology.h"
#include "platforms/topologies/mesh_topology.h"

namespace locsim {

const std::vector<TopologyInfo>& topology_registry() {
  static const std::vector<TopologyInfo> table = {
      {"crossbar",
       "SMs with private L1s, one crossbar port per SM, L2 sub-partitions and memory "
       "controllers (fermi, pascal)",
       [] { return std::unique_ptr<TopologyBuilder>(new CrossbarTopology()); }},
      {"clustered",
       "SMs in clusters of gpu.sms_per_cluster sharing one crossbar port and response FIFO; "
       "mechanisms may put a unit in front of each cluster's port (volta's two-SM TPCs, seed 001's "
       "clustered GPU)",
       [] { return std::unique_ptr<TopologyBuilder>(new ClusteredTopology()); }},
      {"mcm",
       "a multi-chip-module GPU: mcm.modules GPU modules (NUMA zones), each with its SMs, "
       "crossbar, L2 sub-partitions and memory channels, joined by a ring of inter-module links "
       "(seed 000 §5)",
       [] { return std::unique_ptr<TopologyBuilder>(new McmTopology()); }},
      {"mesh",
       "SMs and memory partitions on the nodes of a 2-D mesh with separate request and reply "
       "networks and virtual channels (seed 002's shared-L1 GPU)",
       [] { return std::unique_ptr<TopologyBuilder>(new MeshTopology()); }},
  };
  return table;
}

std::vector<std::string> topology_names() {
  std::vector<std::string> out;
  for (const auto& t : topology_registry()) out.push_back(t.name);
  return out;
}

std::unique_ptr<TopologyBuilder> make_topology(const std::string& name) {
  for (const auto& t : topology_registry())
    if (name == t.name) return t.make();
  std::string known;
  for (const auto& n : topology_names()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError("key 'gpu.topology': unknown topology '" + name + "' (known: " + known + ")");
}

namespace {
// A socket's user-visible name: a target socket's backward port is <socket>_port or
// <socket>_port_<n>.
std::string socket_name(const sc_core::sc_object& port) {
  std::string n = port.name();
  const std::size_t at = n.rfind("_port");
  if (at != std::string::npos && at > n.rfind('.') &&
      n.find_first_not_of("0123456789_", at + 5) == std::string::npos)
    n.resize(at);
  return n;
}

void check_object(sc_core::sc_object& o, const std::string& topology) {
  if (auto* p = dynamic_cast<sc_core::sc_port_base*>(&o)) {
    if (p->bind_count() == 0)
      throw ConfigError("elaboration of topology '" + topology + "': socket '" + socket_name(o) +
                        "' is not bound");
  }
  for (sc_core::sc_object* c : o.get_child_objects()) check_object(*c, topology);
}
}  // namespace

void check_bindings(const sc_core::sc_object& top, const std::string& topology) {
  check_object(const_cast<sc_core::sc_object&>(top), topology);
}

}  // namespace locsim
