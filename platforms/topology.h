// Topologies: which blocks a GPU has and how they are wired. Each topology has its own builder
// under platforms/topologies/, chosen by the platform's gpu.topology key; GpuPlatform knows no
// wiring order. docs/architecture.md ("Adding a topology") describes the contract.
#pragma once
#include <memory>
#include <string>
#include <systemc>
#include <vector>

namespace locsim {

class PlatformBuild;
struct GpuConfig;

class TopologyBuilder {
 public:
  virtual ~TopologyBuilder() = default;
  virtual const char* name() const = 0;
  // Rejects a configuration this topology cannot build (ConfigError naming the key).
  virtual void validate(const GpuConfig&) const {}
  // Creates every block into b.parts and binds every socket, calling the mechanisms' elaboration
  // steps (platforms/mechanism.h) at their points. Runs inside GpuPlatform's constructor, so the
  // blocks are its children.
  virtual void build(PlatformBuild& b) const = 0;
};

struct TopologyInfo {
  const char* name;
  const char* description;
  std::unique_ptr<TopologyBuilder> (*make)();
};

// Every topology locsim can build (one table: platforms/topology.cpp).
const std::vector<TopologyInfo>& topology_registry();
std::vector<std::string> topology_names();
// Throws ConfigError "key 'gpu.topology': unknown topology ..." for an unknown name.
std::unique_ptr<TopologyBuilder> make_topology(const std::string& name);

// Elaboration check: every port and socket below `top` is bound (a module whose sockets are not
// all bound is left dangling by its builder). Throws ConfigError naming the first unbound socket.
void check_bindings(const sc_core::sc_object& top, const std::string& topology);

}  // namespace locsim
