# The report's browser test: it opens a real report in headless Chromium (Debian's package).
APT_report := chromium
APT_PACKAGES += $(APT_report)
