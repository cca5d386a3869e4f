# `cryptobench import` reads these tools' output; its tests run the real tools.
APT_PACKAGES += botan hyperfine
