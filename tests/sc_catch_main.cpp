// Catch2 runner for SystemC tests: libsystemc provides main() and calls sc_main. SystemC warnings
// are promoted to errors (thrown), so a test that provokes one fails.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING,
                                          sc_core::SC_DISPLAY | sc_core::SC_THROW);
  return Catch::Session().run(argc, argv);
}
