# The channel scenario: the VPN daemons (OpenVPN, strongSwan with user-space ESP, wireguard-go),
# OpenSSH and vsftpd for bulk transfers, and the network tools it drives.
APT_channel := openvpn strongswan-charon strongswan-swanctl libcharon-extra-plugins \
  libstrongswan-standard-plugins \
  wireguard-go wireguard-tools openssh-server openssh-client vsftpd curl iperf3 iproute2 \
  iputils-ping
APT_PACKAGES += $(APT_channel)
