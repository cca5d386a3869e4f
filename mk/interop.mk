# `cryptobench import` reads these tools' output; its tests run the real tools.
APT_interop := botan hyperfine
APT_PACKAGES += $(APT_interop)
