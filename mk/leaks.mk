# The leaks scenario's secret-flow method (`cryptobench leaks --method taint`, docs/leaks.md)
# runs the runners under valgrind's memcheck; the valgrind package also brings
# valgrind/memcheck.h, whose client requests the native runner is built with when it is there.
APT_leaks := valgrind
APT_PACKAGES += $(APT_leaks)
