/* NVIDIA's Xid catalog ("Analyzing Xid Errors with the Xid Catalog",
 * docs.nvidia.com/deploy/xid-errors, the table for Ampere and newer GPUs;
 * numbers below 79 mean the same on older GPUs): each Xid with its
 * mnemonic, what it means, and NVIDIA's resolution bucket, the immediate
 * action and the investigatory one. Xids the catalog marks unused are
 * left out; an Xid not listed is reported with its number alone.
 *
 * X(number, mnemonic, meaning, immediate, investigatory) */
#ifndef NCCLOG_XIDS_H
#define NCCLOG_XIDS_H

/* The resolution buckets, and what each asks of the operator. */
#define XID_BUCKETS(B)                                                                                        \
	B(XB_NONE, "", "")                                                                                    \
	B(XB_RESTART_APP, "RESTART_APP", "restart the application; the GPU itself stays usable")              \
	B(XB_RESET_GPU, "RESET_GPU", "reset the GPU (nvidia-smi -r, or drain and reboot the node) before it runs work again") \
	B(XB_RESTART_BM, "RESTART_BM", "reboot (power cycle) the node before it runs work again")            \
	B(XB_RESTART_VM, "RESTART_VM", "restart the virtual machine")                                         \
	B(XB_CONTACT_SUPPORT, "CONTACT_SUPPORT", "contact NVIDIA or the hardware vendor")                     \
	B(XB_IGNORE, "IGNORE", "nothing for the GPU itself")                                                  \
	B(XB_CHECK_MECHANICALS, "CHECK_MECHANICALS", "check the GPU's power cables and seating")              \
	B(XB_UPDATE_SWFW, "UPDATE_SWFW", "update the driver and firmware")                                    \
	B(XB_CHECK_APP, "CHECK_APP/CUDA", "debug the application's kernels (compute-sanitizer memcheck, cuda-gdb, CUDA_DEVICE_WAITS_ON_EXCEPTION=1)") \
	B(XB_ECC, "WORKFLOW_XID_48", "reset the GPU or reboot the node, then check its ECC counters (nvidia-smi -q -d ECC,ROW_REMAPPER) against the RMA thresholds") \
	B(XB_NVLINK, "WORKFLOW_NVLINK_ERR", "reset the GPU or reboot the node; nvidia-smi nvlink -e shows the link's errors, and a failing GPU at the other end of the link is reported too") \
	B(XB_FOLLOW, "WORKFLOW_XID_45", "follow the Xid it comes with: this one reports the cleanup after another error or a killed process") \
	B(XB_INVESTIGATE_SW, "INVESTIGATE_SW", "investigate the driver and system software")                  \
	B(XB_LINK_SI, "INVESTIGATE_LINK_SI", "investigate the link's signal integrity with the vendor")

#define XIDS(X)                                                                                                  \
	X(8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT", "GPU stopped processing", XB_RESTART_APP, XB_CONTACT_SUPPORT) \
	X(11, "ROBUST_CHANNEL_GR_ERROR_MISSING_HW", "invalid or corrupted push buffer stream", XB_RESTART_APP, XB_CHECK_APP) \
	X(13, "ROBUST_CHANNEL_GR_EXCEPTION", "graphics engine exception: an application fault, usually an out-of-bounds access", XB_RESTART_APP, XB_CHECK_APP) \
	X(14, "ROBUST_CHANNEL_FAKE_ERROR", "fake or injected error", XB_IGNORE, XB_CONTACT_SUPPORT)           \
	X(25, "ROBUST_CHANNEL_GR_ILLEGAL_NOTIFY", "invalid or illegal push buffer stream", XB_RESTART_APP, XB_CHECK_APP) \
	X(31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "GPU memory page fault: an illegal address access, usually by the application", XB_RESTART_APP, XB_CHECK_APP) \
	X(32, "ROBUST_CHANNEL_PBDMA_ERROR", "invalid or corrupted push buffer stream (often PCIe quality)", XB_RESTART_APP, XB_CHECK_APP) \
	X(37, "ROBUST_CHANNEL_FECS_ERR_UNIMP_FIRMWARE_METHOD", "driver firmware error", XB_IGNORE, XB_CHECK_APP) \
	X(38, "ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT", "driver firmware error", XB_IGNORE, XB_CONTACT_SUPPORT) \
	X(39, "ROBUST_CHANNEL_CE0_ERROR", "copy engine exception", XB_RESTART_APP, XB_CONTACT_SUPPORT)       \
	X(40, "ROBUST_CHANNEL_CE1_ERROR", "copy engine exception", XB_RESTART_APP, XB_CONTACT_SUPPORT)       \
	X(41, "ROBUST_CHANNEL_CE2_ERROR", "copy engine exception", XB_RESTART_APP, XB_CONTACT_SUPPORT)       \
	X(43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "GPU stopped processing: the application hit a software fault and must end; the GPU stays healthy", XB_IGNORE, XB_CONTACT_SUPPORT) \
	X(44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW", "graphics engine fault during context switch", XB_IGNORE, XB_CONTACT_SUPPORT) \
	X(45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "preemptive cleanup after an earlier error, or of an application that was killed", XB_FOLLOW, XB_IGNORE) \
	X(46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "GPU stopped processing", XB_RESET_GPU, XB_CONTACT_SUPPORT) \
	X(48, "ROBUST_CHANNEL_GPU_ECC_DBE", "double bit ECC error: uncorrectable memory error", XB_ECC, XB_ECC) \
	X(54, "SILENT_RUNNING_PWR_REDUCED_CLOCKING", "auxiliary power is not connected to the GPU board", XB_CHECK_MECHANICALS, XB_CONTACT_SUPPORT) \
	X(60, "ROBUST_CHANNEL_SEC2_ERROR", "video processor exception", XB_RESTART_APP, XB_INVESTIGATE_SW)   \
	X(61, "PMU_BREAKPOINT", "internal micro-controller breakpoint", XB_RESET_GPU, XB_CONTACT_SUPPORT)     \
	X(62, "PMU_HALT_ERROR", "internal micro-controller halt", XB_RESET_GPU, XB_CONTACT_SUPPORT)          \
	X(63, "INFOROM_DRAM_RETIREMENT_EVENT", "GPU memory row remapping or page retirement event", XB_IGNORE, XB_IGNORE) \
	X(64, "INFOROM_DRAM_RETIREMENT_FAILURE", "GPU memory row remapping or page retirement failure", XB_RESET_GPU, XB_CONTACT_SUPPORT) \
	X(66, "ROBUST_CHANNEL_FECS_ERR_REG_ACCESS_VIOLATION", "illegal access by driver", XB_IGNORE, XB_INVESTIGATE_SW) \
	X(67, "ROBUST_CHANNEL_FECS_ERR_VERIF_VIOLATION", "illegal access by driver", XB_IGNORE, XB_CONTACT_SUPPORT) \
	X(68, "ROBUST_CHANNEL_NVDEC0_ERROR", "NVDEC0 exception", XB_RESTART_APP, XB_CONTACT_SUPPORT)           \
	X(69, "ROBUST_CHANNEL_GR_CLASS_ERROR", "graphics engine class error", XB_RESTART_APP, XB_CHECK_APP)   \
	X(70, "ROBUST_CHANNEL_CE3_ERROR", "copy engine 3 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)           \
	X(71, "ROBUST_CHANNEL_CE4_ERROR", "copy engine 4 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)           \
	X(72, "ROBUST_CHANNEL_CE5_ERROR", "copy engine 5 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)           \
	X(74, "NVLINK_ERROR", "NVLink error: a link to another GPU or an NVSwitch failed", XB_NVLINK, XB_CONTACT_SUPPORT) \
	X(75, "ROBUST_CHANNEL_CE6_ERROR", "copy engine 6 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)           \
	X(76, "ROBUST_CHANNEL_CE7_ERROR", "copy engine 7 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)           \
	X(77, "ROBUST_CHANNEL_CE8_ERROR", "copy engine 8 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)           \
	X(78, "VGPU_START_ERROR", "vGPU start error", XB_UPDATE_SWFW, XB_UPDATE_SWFW)                         \
	X(79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU has fallen off the bus: the driver cannot reach it over PCIe", XB_RESTART_BM, XB_CONTACT_SUPPORT) \
	X(80, "PBDMA_PUSHBUFFER_CRC_MISMATCH", "corrupted data sent to GPU", XB_RESTART_APP, XB_CHECK_APP)    \
	X(82, "ROBUST_CHANNEL_NVJPG0_ERROR", "NVJPG0 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)                \
	X(83, "ROBUST_CHANNEL_NVDEC1_ERROR", "NVDEC1 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)                \
	X(84, "ROBUST_CHANNEL_NVDEC2_ERROR", "NVDEC2 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)                \
	X(85, "ROBUST_CHANNEL_CE9_ERROR", "copy engine 9 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)           \
	X(86, "ROBUST_CHANNEL_OFA0_ERROR", "OFA exception", XB_RESTART_APP, XB_CONTACT_SUPPORT)                \
	X(88, "ROBUST_CHANNEL_NVDEC3_ERROR", "NVDEC3 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)                \
	X(89, "ROBUST_CHANNEL_NVDEC4_ERROR", "NVDEC4 error", XB_RESTART_APP, XB_CONTACT_SUPPORT)                \
	X(92, "EXCESSIVE_SBE_INTERRUPTS", "high single-bit ECC error rate", XB_IGNORE, XB_CONTACT_SUPPORT)    \
	X(93, "INFOROM_ERASE_LIMIT_EXCEEDED", "InfoROM wear limit reached", XB_IGNORE, XB_CONTACT_SUPPORT)    \
	X(94, "ROBUST_CHANNEL_CONTAINED_ERROR", "contained memory error: the application that hit it must restart", XB_RESTART_APP, XB_IGNORE) \
	X(95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "uncontained memory error: every application on the GPU is affected", XB_RESET_GPU, XB_IGNORE) \
	X(109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "context switch timeout", XB_RESET_GPU, XB_CONTACT_SUPPORT) \
	X(110, "SEC_FAULT_ERROR", "security fault", XB_RESET_GPU, XB_INVESTIGATE_SW)                          \
	X(119, "GSP_RPC_TIMEOUT", "GSP RPC timeout: the GPU's system processor did not answer the driver", XB_RESET_GPU, XB_INVESTIGATE_SW) \
	X(120, "GSP_ERROR", "GSP error", XB_RESET_GPU, XB_INVESTIGATE_SW)                                      \
	X(121, "C2C_ERROR", "corrected errors on the C2C link to the Grace CPU", XB_IGNORE, XB_CONTACT_SUPPORT) \
	X(136, "ALI_TRAINING_FAIL", "NVLink link training failed", XB_RESET_GPU, XB_LINK_SI)                    \
	X(137, "NVLINK_PRIV_ERR", "NVLink privilege error: an illegal peer-to-peer access", XB_IGNORE, XB_CHECK_APP) \
	X(140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "unrecovered ECC error", XB_RESET_GPU, XB_CONTACT_SUPPORT)    \
	X(141, "ROBUST_CHANNEL_FAST_PATH_ERROR", "CUDA fast path error", XB_IGNORE, XB_CONTACT_SUPPORT)        \
	X(143, "GPU_INIT_ERROR", "GPU initialization error", XB_RESET_GPU, XB_CONTACT_SUPPORT)                 \
	X(144, "NVLINK_SAW_ERROR", "NVLink SAW error", XB_NVLINK, XB_NVLINK)                                    \
	X(145, "NVLINK_RLW_ERROR", "NVLink RLW error", XB_NVLINK, XB_NVLINK)                                    \
	X(146, "NVLINK_TLW_ERROR", "NVLink TLW error", XB_NVLINK, XB_NVLINK)                                    \
	X(147, "NVLINK_TREX_ERROR", "NVLink TREX error", XB_NVLINK, XB_NVLINK)                                  \
	X(148, "NVLINK_NVLPW_CTRL_ERROR", "NVLink NVLPW_CTRL error", XB_NVLINK, XB_NVLINK)                      \
	X(149, "NVLINK_NETIR_ERROR", "NVLink NETIR error: a link went down", XB_RESET_GPU, XB_NVLINK)          \
	X(150, "NVLINK_MSE_ERROR", "NVLink MSE error", XB_NVLINK, XB_NVLINK)                                    \
	X(151, "ROBUST_CHANNEL_KEY_ROTATION_ERROR", "key rotation error", XB_RESTART_VM, XB_CONTACT_SUPPORT)   \
	X(154, "GPU_RECOVERY_ACTION_CHANGED", "the recovery action another Xid needs has changed", XB_FOLLOW, XB_NONE) \
	X(155, "NVLINK_SW_DEFINED_ERROR", "NVLink link down flagged as intentional", XB_RESET_GPU, XB_INVESTIGATE_SW) \
	X(156, "RESOURCE_RETIREMENT_EVENT", "resource retirement event", XB_RESET_GPU, XB_IGNORE)              \
	X(157, "RESOURCE_RETIREMENT_FAILURE", "resource retirement failure: no repair left", XB_IGNORE, XB_CONTACT_SUPPORT) \
	X(158, "GPU_FATAL_TIMEOUT", "GPU fatal timeout", XB_RESET_GPU, XB_CONTACT_SUPPORT)                      \
	X(160, "CHANNEL_RETIREMENT_EVENT", "channel retirement event", XB_IGNORE, XB_INVESTIGATE_SW)          \
	X(161, "CHANNEL_RETIREMENT_FAILURE", "channel retirement failure", XB_IGNORE, XB_INVESTIGATE_SW)      \
	X(167, "PCIE_FATAL_TIMEOUT", "PCIe fatal timeout", XB_RESET_GPU, XB_CONTACT_SUPPORT)                   \
	X(169, "SEC2_HALT_ERROR", "internal micro-controller halt", XB_RESET_GPU, XB_CONTACT_SUPPORT)          \
	X(171, "UNCORRECTABLE_DRAM_ERROR", "uncorrectable DRAM error (details of an Xid 48)", XB_ECC, XB_ECC) \
	X(172, "UNCORRECTABLE_SRAM_ERROR", "uncorrectable SRAM error (details of an Xid 48)", XB_ECC, XB_ECC)

#define B(e, name, action) e,
enum xid_bucket { XID_BUCKETS(B) XB_COUNT };
#undef B

typedef struct xid_info {
	int xid;
	const char *mnemonic, *meaning;
	enum xid_bucket now, then;
} xid_info;

/* The catalog's entry of an Xid, or NULL when it has none. */
const xid_info *xid_lookup(long xid);
/* The bucket's name in NVIDIA's spreadsheet, and what it asks for. */
const char *xid_bucket_name(enum xid_bucket b);
const char *xid_bucket_action(enum xid_bucket b);

#endif
