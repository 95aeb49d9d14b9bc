/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * /proc files as Linux 6.18.44 (x86_64, 2 CPUs) wrote them, captured once for
 * the unit tests: every sample column of the telemetry schema must be
 * found in them by the parsers the sampler uses.
 */
#ifndef TELEMETRY_PROC_SNAPSHOT_H
#define TELEMETRY_PROC_SNAPSHOT_H

static const struct proc_snapshot {
	const char *path;
	const char *text;
} proc_snapshot[] = {
	{ "/proc/net/rt6_stats",
	  "0009 0006 0045 0007 0000 0000 001f\n" },
	{ "/proc/net/snmp",
	  "Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds ReasmOKs ReasmFails FragOKs FragFails FragCreates OutTransmits\n"
	  "Ip: 2 64 12893 0 0 0 0 0 12893 8050 0 0 0 0 0 0 0 0 0 8050\n"
	  "Icmp: InMsgs InErrors InCsumErrors InDestUnreachs InTimeExcds InParmProbs InSrcQuenchs InRedirects InEchos InEchoReps InTimestamps InTimestampReps InAddrMasks InAddrMaskReps OutMsgs OutErrors OutRateLimitGlobal OutRateLimitHost OutDestUnreachs OutTimeExcds OutParmProbs OutSrcQuenchs OutRedirects OutEchos OutEchoReps OutTimestamps OutTimestampReps OutAddrMasks OutAddrMaskReps\n"
	  "Icmp: 1 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	  "IcmpMsg: InType3\n"
	  "IcmpMsg: 1\n"
	  "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	  "Tcp: 1 200 120000 -1 35 14 0 0 0 12836 7994 0 0 2 0\n"
	  "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
	  "Udp: 56 0 0 57 0 0 0 0 0\n"
	  "UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
	  "UdpLite: 0 0 0 0 0 0 0 0 0\n" },
	{ "/proc/net/netstat",
	  "TcpExt: SyncookiesSent SyncookiesRecv SyncookiesFailed EmbryonicRsts PruneCalled RcvPruned OfoPruned OutOfWindowIcmps LockDroppedIcmps ArpFilter TW TWRecycled TWKilled PAWSActive PAWSEstab BeyondWindow TSEcrRejected PAWSOldAck PAWSTimewait DelayedACKs DelayedACKLocked DelayedACKLost ListenOverflows ListenDrops TCPHPHits TCPPureAcks TCPHPAcks TCPRenoRecovery TCPSackRecovery TCPSACKReneging TCPSACKReorder TCPRenoReorder TCPTSReorder TCPFullUndo TCPPartialUndo TCPDSACKUndo TCPLossUndo TCPLostRetransmit TCPRenoFailures TCPSackFailures TCPLossFailures TCPFastRetrans TCPSlowStartRetrans TCPTimeouts TCPLossProbes TCPLossProbeRecovery TCPRenoRecoveryFail TCPSackRecoveryFail TCPRcvCollapsed TCPBacklogCoalesce TCPDSACKOldSent TCPDSACKOfoSent TCPDSACKRecv TCPDSACKOfoRecv TCPAbortOnData TCPAbortOnClose TCPAbortOnMemory TCPAbortOnTimeout TCPAbortOnLinger TCPAbortFailed TCPMemoryPressures TCPMemoryPressuresChrono TCPSACKDiscard TCPDSACKIgnoredOld TCPDSACKIgnoredNoUndo TCPSpuriousRTOs TCPMD5NotFound TCPMD5Unexpected TCPMD5Failure TCPSackShifted TCPSackMerged TCPSackShiftFallback TCPBacklogDrop PFMemallocDrop TCPMinTTLDrop TCPDeferAcceptDrop IPReversePathFilter TCPTimeWaitOverflow TCPReqQFullDoCookies TCPReqQFullDrop TCPRetransFail TCPRcvCoalesce TCPOFOQueue TCPOFODrop TCPOFOMerge TCPChallengeACK TCPSYNChallenge TCPFastOpenActive TCPFastOpenActiveFail TCPFastOpenPassive TCPFastOpenPassiveFail TCPFastOpenListenOverflow TCPFastOpenCookieReqd TCPFastOpenBlackhole TCPSpuriousRtxHostQueues BusyPollRxPackets TCPAutoCorking TCPFromZeroWindowAdv TCPToZeroWindowAdv TCPWantZeroWindowAdv TCPSynRetrans TCPOrigDataSent TCPHystartTrainDetect TCPHystartTrainCwnd TCPHystartDelayDetect TCPHystartDelayCwnd TCPACKSkippedSynRecv TCPACKSkippedPAWS TCPACKSkippedSeq TCPACKSkippedFinWait2 TCPACKSkippedTimeWait TCPACKSkippedChallenge TCPWinProbe TCPKeepAlive TCPMTUPFail TCPMTUPSuccess TCPDelivered TCPDeliveredCE TCPAckCompressed TCPZeroWindowDrop TCPRcvQDrop TCPWqueueTooBig TCPFastOpenPassiveAltKey TcpTimeoutRehash TcpDuplicateDataRehash TCPDSACKRecvSegs TCPDSACKIgnoredDubious TCPMigrateReqSuccess TCPMigrateReqFailure TCPPLBRehash TCPAORequired TCPAOBad TCPAOKeyNotFound TCPAOGood TCPAODroppedIcmps\n"
	  "TcpExt: 0 0 0 0 0 0 0 0 0 0 33 0 0 0 0 0 0 0 0 0 0 2 0 0 17 50 6 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 2 0 0 0 0 0 178 2 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 8955 1 0 0 0 0 0 0 0 0 0 0 0 2 0 0 847 847 531 0 97 0 0 0 0 0 0 0 0 0 0 0 0 0 0 131 0 0 0 0 0 0 2 0 0 0 0 0 0 0 0 0 0 0\n"
	  "IpExt: InNoRoutes InTruncatedPkts InMcastPkts OutMcastPkts InBcastPkts OutBcastPkts InOctets OutOctets InMcastOctets OutMcastOctets InBcastOctets OutBcastOctets InCsumErrors InNoECTPkts InECT1Pkts InECT0Pkts InCEPkts ReasmOverlaps\n"
	  "IpExt: 0 0 0 0 0 0 570349579 431144 0 0 0 0 0 12893 0 0 0 0\n"
	  "MPTcpExt: MPCapableSYNRX MPCapableSYNTX MPCapableSYNACKRX MPCapableACKRX MPCapableFallbackACK MPCapableFallbackSYNACK MPCapableSYNTXDrop MPCapableSYNTXDisabled MPCapableEndpAttempt MPFallbackTokenInit MPTCPRetrans MPJoinNoTokenFound MPJoinSynRx MPJoinSynBackupRx MPJoinSynAckRx MPJoinSynAckBackupRx MPJoinSynAckHMacFailure MPJoinAckRx MPJoinAckHMacFailure MPJoinRejected MPJoinSynTx MPJoinSynTxCreatSkErr MPJoinSynTxBindErr MPJoinSynTxConnectErr DSSNotMatching DSSCorruptionFallback DSSCorruptionReset InfiniteMapTx InfiniteMapRx DSSNoMatchTCP DataCsumErr OFOQueueTail OFOQueue OFOMerge NoDSSInWindow DuplicateData AddAddr AddAddrTx AddAddrTxDrop EchoAdd EchoAddTx EchoAddTxDrop PortAdd AddAddrDrop MPJoinPortSynRx MPJoinPortSynAckRx MPJoinPortAckRx MismatchPortSynRx MismatchPortAckRx RmAddr RmAddrDrop RmAddrTx RmAddrTxDrop RmSubflow MPPrioTx MPPrioRx MPFailTx MPFailRx MPFastcloseTx MPFastcloseRx MPRstTx MPRstRx SubflowStale SubflowRecover SndWndShared RcvWndShared RcvWndConflictUpdate RcvWndConflict MPCurrEstab Blackhole MPCapableDataFallback MD5SigFallback DssFallback SimultConnectFallback FallbackFailed WinProbe\n"
	  "MPTcpExt: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n" },
	{ "/proc/net/snmp6",
	  "Ip6InReceives                   \t1\n"
	  "Ip6InHdrErrors                  \t0\n"
	  "Ip6InTooBigErrors               \t0\n"
	  "Ip6InNoRoutes                   \t0\n"
	  "Ip6InAddrErrors                 \t0\n"
	  "Ip6InUnknownProtos              \t0\n"
	  "Ip6InTruncatedPkts              \t0\n"
	  "Ip6InDiscards                   \t0\n"
	  "Ip6InDelivers                   \t1\n"
	  "Ip6OutForwDatagrams             \t0\n"
	  "Ip6OutRequests                  \t10\n"
	  "Ip6OutDiscards                  \t0\n"
	  "Ip6OutNoRoutes                  \t0\n"
	  "Ip6ReasmTimeout                 \t0\n"
	  "Ip6ReasmReqds                   \t0\n"
	  "Ip6ReasmOKs                     \t0\n"
	  "Ip6ReasmFails                   \t0\n"
	  "Ip6FragOKs                      \t0\n"
	  "Ip6FragFails                    \t0\n"
	  "Ip6FragCreates                  \t0\n"
	  "Ip6InMcastPkts                  \t0\n"
	  "Ip6OutMcastPkts                 \t8\n"
	  "Ip6InOctets                     \t128\n"
	  "Ip6OutOctets                    \t880\n"
	  "Ip6InMcastOctets                \t0\n"
	  "Ip6OutMcastOctets               \t672\n"
	  "Ip6InBcastOctets                \t0\n"
	  "Ip6OutBcastOctets               \t0\n"
	  "Ip6InNoECTPkts                  \t1\n"
	  "Ip6InECT1Pkts                   \t0\n"
	  "Ip6InECT0Pkts                   \t0\n"
	  "Ip6InCEPkts                     \t0\n"
	  "Ip6OutTransmits                 \t10\n"
	  "Icmp6InMsgs                     \t1\n"
	  "Icmp6InErrors                   \t1\n"
	  "Icmp6OutMsgs                    \t9\n"
	  "Icmp6OutErrors                  \t0\n"
	  "Icmp6InCsumErrors               \t0\n"
	  "Icmp6OutRateLimitHost           \t0\n"
	  "Icmp6InDestUnreachs             \t1\n"
	  "Icmp6InPktTooBigs               \t0\n"
	  "Icmp6InTimeExcds                \t0\n"
	  "Icmp6InParmProblems             \t0\n"
	  "Icmp6InEchos                    \t0\n"
	  "Icmp6InEchoReplies              \t0\n"
	  "Icmp6InGroupMembQueries         \t0\n"
	  "Icmp6InGroupMembResponses       \t0\n"
	  "Icmp6InGroupMembReductions      \t0\n"
	  "Icmp6InRouterSolicits           \t0\n"
	  "Icmp6InRouterAdvertisements     \t0\n"
	  "Icmp6InNeighborSolicits         \t0\n"
	  "Icmp6InNeighborAdvertisements   \t0\n"
	  "Icmp6InRedirects                \t0\n"
	  "Icmp6InMLDv2Reports             \t0\n"
	  "Icmp6OutDestUnreachs            \t1\n"
	  "Icmp6OutPktTooBigs              \t0\n"
	  "Icmp6OutTimeExcds               \t0\n"
	  "Icmp6OutParmProblems            \t0\n"
	  "Icmp6OutEchos                   \t0\n"
	  "Icmp6OutEchoReplies             \t0\n"
	  "Icmp6OutGroupMembQueries        \t0\n"
	  "Icmp6OutGroupMembResponses      \t0\n"
	  "Icmp6OutGroupMembReductions     \t0\n"
	  "Icmp6OutRouterSolicits          \t0\n"
	  "Icmp6OutRouterAdvertisements    \t0\n"
	  "Icmp6OutNeighborSolicits        \t4\n"
	  "Icmp6OutNeighborAdvertisements  \t0\n"
	  "Icmp6OutRedirects               \t0\n"
	  "Icmp6OutMLDv2Reports            \t4\n"
	  "Icmp6InType1                    \t1\n"
	  "Icmp6OutType1                   \t1\n"
	  "Icmp6OutType135                 \t4\n"
	  "Icmp6OutType143                 \t4\n"
	  "Udp6InDatagrams                 \t0\n"
	  "Udp6NoPorts                     \t0\n"
	  "Udp6InErrors                    \t0\n"
	  "Udp6OutDatagrams                \t0\n"
	  "Udp6RcvbufErrors                \t0\n"
	  "Udp6SndbufErrors                \t0\n"
	  "Udp6InCsumErrors                \t0\n"
	  "Udp6IgnoredMulti                \t0\n"
	  "Udp6MemErrors                   \t0\n"
	  "UdpLite6InDatagrams             \t0\n"
	  "UdpLite6NoPorts                 \t0\n"
	  "UdpLite6InErrors                \t0\n"
	  "UdpLite6OutDatagrams            \t0\n"
	  "UdpLite6RcvbufErrors            \t0\n"
	  "UdpLite6SndbufErrors            \t0\n"
	  "UdpLite6InCsumErrors            \t0\n"
	  "UdpLite6MemErrors               \t0\n" },
	{ "/proc/net/sockstat",
	  "sockets: used 14\n"
	  "TCP: inuse 1 orphan 0 tw 0 alloc 1 mem 0\n"
	  "UDP: inuse 0 mem 0\n"
	  "UDPLITE: inuse 0\n"
	  "RAW: inuse 0\n"
	  "FRAG: inuse 0 memory 0\n" },
	{ "/proc/net/sockstat6",
	  "TCP6: inuse 0\n"
	  "UDP6: inuse 0\n"
	  "UDPLITE6: inuse 0\n"
	  "RAW6: inuse 0\n"
	  "FRAG6: inuse 0 memory 0\n" },
	{ "/proc/net/stat/arp_cache",
	  "entries  allocs   destroys hash_grows lookups  hits     res_failed rcv_probes_mcast rcv_probes_ucast periodic_gc_runs forced_gc_runs unresolved_discards table_fulls\n"
	  "00000003 00000008 00000004 00000000   0000009f 00000004 00000000   00000000         00000000         00000000         00000000       00000000            00000000\n"
	  "00000003 00000009 0000000a 00000000   00000055 0000000b 00000000   00000000         00000000         0000004a         00000000       00000000            00000000\n" },
	{ "/proc/net/stat/ndisc_cache",
	  "entries  allocs   destroys hash_grows lookups  hits     res_failed rcv_probes_mcast rcv_probes_ucast periodic_gc_runs forced_gc_runs unresolved_discards table_fulls\n"
	  "00000004 0000001c 0000000c 00000001   00000000 00000000 00000001   00000000         00000000         00000049         00000000       00000000            00000000\n"
	  "00000004 00000012 0000001e 00000000   00000000 00000000 00000000   00000000         00000000         00000000         00000000       00000000            00000000\n" },
	{ "/proc/net/softnet_stat",
	  "00055603 00000000 00000002 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
	  "0004415a 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000001 00000000 00000000\n" },
	{ "/proc/net/dev",
	  "Inter-|   Receive                                                |  Transmit\n"
	  " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
	  "    lo:    7203     101    0    0    0     0          0         0     7203     101    0    0    0     0       0          0\n"
	  "  ifb0:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n"
	  "  ifb1:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n"
	  "  eth0: 570521942   12801    0    0    0     0          0         0   536489    7966    0    0    0     0       0          0\n" },
	{ "/proc/loadavg",
	  "1.62 1.69 1.03 4/108 11078\n" },
	{ "/proc/stat",
	  "cpu  75532 0 20440 126686 983 0 666 197 0 0\n"
	  "cpu0 38259 0 9512 64098 169 0 302 93 0 0\n"
	  "cpu1 37272 0 10927 62588 814 0 363 104 0 0\n"
	  "intr 2899086 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 14 0 0 0 0 226 600 0 31 1 168965 0 8535 6523 0 2048 5998 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	  "ctxt 8362985\n"
	  "btime 1795226521\n"
	  "processes 43542\n"
	  "procs_running 4\n"
	  "procs_blocked 0\n"
	  "softirq 1533875 0 66672 15466 530801 168939 0 609 222255 350927 178206\n" },
	{ "/proc/meminfo",
	  "MemTotal:       24684096 kB\n"
	  "MemFree:        22606028 kB\n"
	  "MemAvailable:   23771180 kB\n"
	  "Buffers:           14984 kB\n"
	  "Cached:          1121668 kB\n"
	  "SwapCached:            0 kB\n"
	  "Active:           447116 kB\n"
	  "Inactive:        1067472 kB\n"
	  "Active(anon):       1568 kB\n"
	  "Inactive(anon):   385156 kB\n"
	  "Active(file):     445548 kB\n"
	  "Inactive(file):   682316 kB\n"
	  "Unevictable:       16780 kB\n"
	  "Mlocked:           15816 kB\n"
	  "SwapTotal:             0 kB\n"
	  "SwapFree:              0 kB\n"
	  "Zswap:                 0 kB\n"
	  "Zswapped:              0 kB\n"
	  "Dirty:             40316 kB\n"
	  "Writeback:             0 kB\n"
	  "AnonPages:        394820 kB\n"
	  "Mapped:            36844 kB\n"
	  "Shmem:              8788 kB\n"
	  "KReclaimable:     338868 kB\n"
	  "Slab:             394412 kB\n"
	  "SReclaimable:     338868 kB\n"
	  "SUnreclaim:        55544 kB\n"
	  "KernelStack:        1748 kB\n"
	  "PageTables:         3124 kB\n"
	  "SecPageTables:         0 kB\n"
	  "NFS_Unstable:          0 kB\n"
	  "Bounce:                0 kB\n"
	  "WritebackTmp:          0 kB\n"
	  "CommitLimit:    12342048 kB\n"
	  "Committed_AS:    3386024 kB\n"
	  "VmallocTotal:   34359738367 kB\n"
	  "VmallocUsed:       14540 kB\n"
	  "VmallocChunk:          0 kB\n"
	  "Percpu:             1368 kB\n"
	  "AnonHugePages:    319488 kB\n"
	  "ShmemHugePages:        0 kB\n"
	  "ShmemPmdMapped:        0 kB\n"
	  "FileHugePages:      4096 kB\n"
	  "FilePmdMapped:         0 kB\n"
	  "Balloon:               0 kB\n"
	  "HugePages_Total:       0\n"
	  "HugePages_Free:        0\n"
	  "HugePages_Rsvd:        0\n"
	  "HugePages_Surp:        0\n"
	  "Hugepagesize:       2048 kB\n"
	  "Hugetlb:               0 kB\n"
	  "DirectMap4k:       34816 kB\n"
	  "DirectMap2M:     2062336 kB\n"
	  "DirectMap1G:    25165824 kB\n" },
	{ "/proc/pressure/cpu",
	  "some avg10=14.42 avg60=18.13 avg300=17.43 total=141418047\n"
	  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n" },
	{ "/proc/pressure/memory",
	  "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
	  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n" },
	{ "/proc/pressure/io",
	  "some avg10=0.03 avg60=0.09 avg300=0.31 total=9060313\n"
	  "full avg10=0.01 avg60=0.04 avg300=0.20 total=7520265\n" },
};

#endif
