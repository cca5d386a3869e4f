# The storage scenario: FUSE and the encrypted file systems it measures, the block-level
# stand-in (LUKS through nbdkit), and the workload tools.
APT_storage := fuse3 gocryptfs encfs cryfs securefs fscrypt rclone qemu-utils nbdkit libnbd-bin \
  fio bonnie++
APT_PACKAGES += $(APT_storage)
