// Import of a GPGPU-Sim configuration file (gpgpusim.config): its options translated into
// locsim parameters, with every option that has no locsim equivalent listed with the reason.
// Pure text processing; the CLI applies the assignments (--gpgpusim-config,
// docs/gpgpusim_import.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace locsim {

struct GpgpuSimImport {
  struct Assignment {
    std::string key, value;  // a locsim parameter and its value
    std::uint32_t line = 0;  // where the option was (file:line is the parameter's source)
  };
  struct Ignored {
    std::string option, value, reason;
    std::uint32_t line = 0;
  };
  std::vector<Assignment> assignments;
  std::vector<Ignored> ignored;
};

// Parses the text of a gpgpusim.config (options "-name value", '#' comments, values in double
// quotes may span lines). A malformed value of an option locsim maps is a ConfigError
// "FILE:LINE: option '-name': bad value 'v' (expected ...)".
GpgpuSimImport import_gpgpusim_config(const std::string& text, const std::string& file);

}  // namespace locsim
