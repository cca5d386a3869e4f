# The config scenario (`cryptobench scenario config`): whole-file encryption with gpg beside
# confcrypt's and the thesis's schemes.
APT_config := gnupg
APT_PACKAGES += $(APT_config)
