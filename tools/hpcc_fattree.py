#!/usr/bin/python3
"""Writes the 320-host fat-tree of the HPCC ns-3 simulator's examples in that simulator's topology format.

16 core, 20 aggregation and 20 ToR switches in 5 pods of 4 ToR + 4 aggregation switches; 16 hosts per ToR;
100G host links and 400G switch links, 1 us each (HPCC repository simulation/mix/fat.txt: 376 nodes, 56
switches, 480 links).
Hosts are nodes 0..319 (host h under ToR h // 16), then ToRs 320..339, aggregation 340..359, cores 360..375.
Each ToR links to the 4 aggregation switches of its pod; aggregation switch j of a pod links to cores 4j..4j+3.

With --k K: the three-tier k-ary fat-tree instead (K even): K^3/4 hosts, K/2 per edge switch; K pods of K/2 edge
and K/2 aggregation switches, fully linked within the pod; (K/2)^2 cores, aggregation switch j of every pod
linked to cores j*K/2 .. j*K/2 + K/2 - 1. Hosts first, then edges, aggregations and cores (pod by pod); links
host-edge (by host), edge-aggregation (by pod, edge, aggregation), aggregation-core (by pod, aggregation, core).
`--k 8 --fabric-rate 100Gbps` writes tests/io/fixtures/hpcc-ns3-ft8/*/topo.txt.

Usage: tools/hpcc_fattree.py > topology.txt   [--k K] [--host-rate 100Gbps --fabric-rate 400Gbps --delay 1000ns]
"""
import argparse


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host-rate", default="100Gbps")
    ap.add_argument("--fabric-rate", default="400Gbps")
    ap.add_argument("--delay", default="1000ns")
    ap.add_argument("--k", type=int, default=0, help="a k-ary three-tier fat-tree (k even) instead")
    a = ap.parse_args()
    if a.k:
        if a.k < 2 or a.k % 2:
            ap.error("--k must be an even number of 2 or more")
        kary(a)
        return
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


def kary(a):
    k, half = a.k, a.k // 2
    hosts, edges, aggs, cores = k * half * half, k * half, k * half, half * half
    edge0, agg0, core0 = hosts, hosts + edges, hosts + edges + aggs
    links = [(h, edge0 + h // half, a.host_rate) for h in range(hosts)]
    for p in range(k):
        for e in range(half):
            for g in range(half):
                links.append((edge0 + half * p + e, agg0 + half * p + g, a.fabric_rate))
    for p in range(k):
        for g in range(half):
            for c in range(half):
                links.append((agg0 + half * p + g, core0 + half * g + c, a.fabric_rate))
    n = hosts + edges + aggs + cores
    print(n, edges + aggs + cores, len(links))
    print(" ".join(str(i) for i in range(hosts, n)))
    for s, d, r in links:
        print(s, d, r, a.delay, 0)


if __name__ == "__main__":
    main()
