// doctest main for host tests: they need no GPU and run everywhere, CI included.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
