#!/usr/bin/python3
"""Writes the 320-host fat-tree of the HPCC ns-3 simulator's examples in that simulator's topology format.

16 core, 20 aggregation and 20 ToR switches in 5 pods of 4 ToR + 4 aggregation switches; 16 hosts per ToR;
100G host links and 400G switch links, 1 us each (HPCC repository simulation/mix/fat.txt: 376 nodes, 56
switches, 480 links).
Hosts are nodes 0..319 (host h under ToR h // 16), then ToRs 320..339, aggregation 340..359, cores 360..375.
Each ToR links to the 4 aggregation switches of its pod; aggregation switch j of a pod links to cores 4j..4j+3.

Usage: tools/hpcc_fattree.py > topology.txt   [--host-rate 100Gbps --fabric-rate 400Gbps --delay 1000ns]
"""
import argparse


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host-rate", default="100Gbps")
    ap.add_argument("--fabric-rate", default="400Gbps")
    ap.add_argument("--delay", default="1000ns")
    a = ap.parse_args()
    hosts, tors, aggs, cores, pods = 320, 20, 20, 16, 5
    tor0, agg0, core0 = hosts, hosts + tors, hosts + tors + aggs
    links = []
    for h in range(hosts):
        links.append((h, tor0 + h // 16, a.host_rate))
    for p in range(pods):
        for t in range(4):
            for g in range(4):
                links.append((tor0 + 4 * p + t, agg0 + 4 * p + g, a.fabric_rate))
        for g in range(4):
            for c in range(4):
                links.append((agg0 + 4 * p + g, core0 + 4 * g + c, a.fabric_rate))
    n = hosts + tors + aggs + cores
    print(n, tors + aggs + cores, len(links))
    print(" ".join(str(i) for i in range(hosts, n)))
    for s, d, r in links:
        print(s, d, r, a.delay, 0)


if __name__ == "__main__":
    main()
