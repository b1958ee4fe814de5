//! A physical machine's life cycle at a site, as operators and the stock
//! count see it.

crate::named_enum! {
    pub enum HostState {
        Free = "free",
        /// Reserved for a checkout in progress; returns by itself at expiry.
        Held = "held",
        Allocated = "allocated",
        Wiping = "wiping",
        Maintenance = "maintenance",
        Failed = "failed",
    }
}

impl HostState {
    /// The states from which an operator may move a host to `to`. A host a
    /// customer holds or uses can be marked failed (its server is then
    /// rebuilt elsewhere) but never freed or put in maintenance by hand.
    pub fn operator_sources(to: HostState) -> &'static [HostState] {
        match to {
            HostState::Free => &[HostState::Maintenance, HostState::Failed],
            HostState::Maintenance => &[HostState::Free, HostState::Failed],
            HostState::Failed => &[
                HostState::Free,
                HostState::Held,
                HostState::Allocated,
                HostState::Wiping,
                HostState::Maintenance,
            ],
            HostState::Held | HostState::Allocated | HostState::Wiping => &[],
        }
    }
}

crate::named_enum! {
    /// How the Fleet reaches a host's serial console through its BMC.
    pub enum SerialConsole {
        /// IPMI Serial-over-LAN (`ipmitool -I lanplus … sol activate`).
        Ipmi = "ipmi",
        /// The BMC's SSH service, then a vendor command that attaches the
        /// host's serial port (iDRAC `console com2`, iLO `vsp`, XCC `console 1`).
        Ssh = "ssh",
    }
}
