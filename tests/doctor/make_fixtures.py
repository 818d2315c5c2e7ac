#!/usr/bin/python3
"""Writes the sysfs fixture trees of `rocetrace doctor` (tests/doctor/sysfs/CASE/), modelled on an mlx5 host.

One RDMA device mlx5_0, port 1, netdev ens1f0np0 at PCI 0000:3b:00.0, as the
mlx5 driver (with MLNX_OFED's per-priority ECN switches) lays them out:
  class/infiniband/mlx5_0/ports/1/{state,phys_state,link_layer,rate}
  class/infiniband/mlx5_0/ports/1/gids/N, gid_attrs/{types,ndevs}/N
  class/infiniband/mlx5_0/ports/1/{hw_counters,counters}/NAME
  class/net/ens1f0np0/{mtu,operstate,speed,type,flags,carrier,address}
  class/net/ens1f0np0/ecn/roce_{np,rp}/enable/0..7, ecn/roce_np/{cnp_dscp,cnp_802p_prio}
  kernel/config/rdma_cm/mlx5_0/ports/1/{default_roce_tos,default_roce_mode}
The GID table holds, for the link-local address, 192.0.2.10 and 2001:db8::10,
a RoCE v1 and a RoCE v2 entry each (indexes 0..5); the rest of its 16 entries
are zero, as unused entries read. Each broken case changes one thing; PFC off
on the RoCE priority comes from the tools' recordings (recordings/) over the
correct tree.

Run it from anywhere: it rewrites the trees next to itself.
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "sysfs")
DEV, NETDEV, PCI = "mlx5_0", "ens1f0np0", "0000:3b:00.0"

LINK_LOCAL = "fe80:0000:0000:0000:0e42:a1ff:fe2b:3c4d"
V4 = "0000:0000:0000:0000:0000:ffff:c000:020a"  # ::ffff:192.0.2.10
V6 = "2001:0db8:0000:0000:0000:0000:0000:0010"  # 2001:db8::10
ZERO = "0000:0000:0000:0000:0000:0000:0000:0000"


def base():
    """The correct host: path (relative to the tree) -> content, or ('link', target)."""
    port = f"class/infiniband/{DEV}/ports/1"
    net = f"class/net/{NETDEV}"
    t = {
        f"class/infiniband/{DEV}/device": ("link", f"../../../devices/pci0000:3a/{PCI}"),
        f"devices/pci0000:3a/{PCI}/net/{NETDEV}/ifindex": "4",
        f"{port}/state": "4: ACTIVE",
        f"{port}/phys_state": "5: LinkUp",
        f"{port}/link_layer": "Ethernet",
        f"{port}/rate": "100 Gb/sec (4X EDR)",
        f"{port}/lid": "0x0",
        f"{net}/device": ("link", f"../../../devices/pci0000:3a/{PCI}"),
        f"{net}/mtu": "4200",
        f"{net}/operstate": "up",
        f"{net}/carrier": "1",
        f"{net}/speed": "100000",
        f"{net}/type": "1",
        f"{net}/flags": "0x1003",
        f"{net}/address": "0c:42:a1:2b:3c:4d",
        f"{net}/ecn/roce_np/cnp_dscp": "48",
        f"{net}/ecn/roce_np/cnp_802p_prio": "6",
        f"kernel/config/rdma_cm/{DEV}/ports/1/default_roce_tos": "106",
        f"kernel/config/rdma_cm/{DEV}/ports/1/default_roce_mode": "RoCE v2",
    }
    gids = [(LINK_LOCAL, "IB/RoCE v1"), (LINK_LOCAL, "RoCE v2"), (V4, "IB/RoCE v1"),
            (V4, "RoCE v2"), (V6, "IB/RoCE v1"), (V6, "RoCE v2")]
    for i in range(16):
        gid, kind = gids[i] if i < len(gids) else (ZERO, None)
        t[f"{port}/gids/{i}"] = gid
        if kind:
            t[f"{port}/gid_attrs/types/{i}"] = kind
            t[f"{port}/gid_attrs/ndevs/{i}"] = NETDEV
    for p in range(8):
        t[f"{net}/ecn/roce_np/enable/{p}"] = "1"
        t[f"{net}/ecn/roce_rp/enable/{p}"] = "1"
    hw = {"np_ecn_marked_roce_packets": 1520, "np_cnp_sent": 1496, "rp_cnp_handled": 3021,
          "rp_cnp_ignored": 0, "out_of_buffer": 0, "packet_seq_err": 0, "out_of_sequence": 0,
          "local_ack_timeout_err": 0, "duplicate_request": 0, "implied_nak_seq_err": 0,
          "rnr_nak_retry_err": 0}
    for name, v in hw.items():
        t[f"{port}/hw_counters/{name}"] = str(v)
    for name, v in {"port_xmit_data": 81920000, "port_rcv_data": 40960000,
                    "port_xmit_packets": 20000, "port_rcv_packets": 10000}.items():
        t[f"{port}/counters/{name}"] = str(v)
    return t


def cases():
    port = f"class/infiniband/{DEV}/ports/1"
    net = f"class/net/{NETDEV}"
    good = base()
    c = {"good": good}
    c["mtu1500"] = dict(good, **{f"{net}/mtu": "1500"})
    c["np_off"] = dict(good, **{f"{net}/ecn/roce_np/enable/3": "0"})
    c["rp_off"] = dict(good, **{f"{net}/ecn/roce_rp/enable/3": "0"})
    # the IPv4 address kept only its RoCE v1 GID
    no_v2 = dict(good)
    no_v2[f"{port}/gids/3"] = ZERO
    del no_v2[f"{port}/gid_attrs/types/3"]
    del no_v2[f"{port}/gid_attrs/ndevs/3"]
    c["no_v2_gid"] = no_v2
    c["port_down"] = dict(good, **{f"{port}/state": "1: DOWN", f"{port}/phys_state": "3: Disabled",
                                   f"{net}/operstate": "down", f"{net}/carrier": "0",
                                   f"{net}/speed": "-1", f"{net}/flags": "0x1002"})
    # MLNX_OFED's sysfs qos/: trust pcp, and an untagged RoCE port
    c["trust_pcp"] = dict(good, **{f"{net}/qos/trust": "pcp"})
    # no configfs group for the device: rdma_cm's default ToS 0
    c["tos_default"] = {k: v for k, v in good.items() if not k.startswith("kernel/config/rdma_cm/" + DEV)}
    c["tos_default"]["kernel/config/rdma_cm/.keep"] = ""
    return c


def write(tree, root):
    for rel, content in sorted(tree.items()):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, tuple):
            os.symlink(content[1], path)
        else:
            with open(path, "w") as f:
                f.write(content + "\n" if content else "")


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    for name, tree in cases().items():
        write(tree, os.path.join(OUT, name))


if __name__ == "__main__":
    main()
