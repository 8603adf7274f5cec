// Merge table of the intra-cluster coalescing unit (seed 001 §6.1, Fig. 9) as synthesizable RTL.
//
// A fully associative table of outstanding cluster reads. Each entry holds a valid bit, the line
// address, the bytes the leading request fetches, the leader's tag and the bit-vector of SMs
// waiting for the line. One operation per clock, sampled on the rising edge; its result is
// registered and readable after that edge:
//   read:  lookup; covered hit -> MERGED (requester bit set), uncovered hit -> UNCOVERED,
//          miss with a free entry -> ALLOCATED (lowest free index), miss with none -> FULL;
//   write: stores and atomics bypass the table (§6.1) -> BYPASS, nothing changes;
//   reply: lookup by address (§6.1); an entry holding the line whose fetched bytes the reply
//          carries -> RELEASED (entry freed, its bit-vector is the broadcast list), whichever of
//          the line's requests the reply answers; otherwise -> DIRECT (own SM only).
// The refinement of model/merge_table.h is kept: a read merges only if the outstanding request
// fetches every byte it needs, and a reply frees an entry only if it brings all those bytes.
// look_outcome/look_entry show, combinationally, what the presented operation would do, so the
// ICC can check room in its broadcast queues before committing a reply with a clock edge.
// The TLM twin is model/merge_table.h; docs/rtl_cosim.md describes the transactor.
module icc_merge_table #(
    parameter int ENTRIES   = 48,   // seed 001 §6.2
    parameter int SMS       = 32,   // requester bit-vector width (SMs of one cluster)
    parameter int LINE_BITS = 64,   // line-address width
    parameter int MASK_BITS = 128,  // bytes per line
    parameter int TAG_BITS  = 32,   // request tag width (the transactor's request id)
    localparam int IDX_BITS = (ENTRIES > 1) ? $clog2(ENTRIES) : 1,
    localparam int CNT_BITS = $clog2(ENTRIES + 1)
) (
    input  logic                 clk,
    input  logic                 rst_n,        // synchronous, active low
    // Operation port.
    input  logic                 op_valid,
    input  logic [          1:0] op_kind,      // 0 read, 1 write, 2 reply
    input  logic [LINE_BITS-1:0] op_line,
    input  logic [MASK_BITS-1:0] op_mask,      // read: bytes needed; reply: bytes carried
    input  logic [          7:0] op_sm,        // read: requester, relative to the cluster
    input  logic [ TAG_BITS-1:0] op_tag,       // read: its tag (kept as the leader's tag)
    // Outcome the presented operation would have (combinational, before the edge).
    output logic [          2:0] look_outcome,
    output logic [ IDX_BITS-1:0] look_entry,
    // Result of the operation sampled at the last rising edge.
    output logic                 rsp_valid,
    output logic [          2:0] rsp_outcome,
    output logic [ IDX_BITS-1:0] rsp_entry,
    output logic [      SMS-1:0] rsp_sms,      // RELEASED: SMs to broadcast to
    output logic [ CNT_BITS-1:0] in_use,
    // Debug read port (combinational): one entry's state, for lockstep diagnostics.
    input  logic [ IDX_BITS-1:0] dbg_entry,
    output logic                 dbg_valid,
    output logic [LINE_BITS-1:0] dbg_line,
    output logic [MASK_BITS-1:0] dbg_mask,
    output logic [      SMS-1:0] dbg_sms,
    output logic [ TAG_BITS-1:0] dbg_tag
);
  localparam logic [1:0] OpRead = 2'd0, OpWrite = 2'd1, OpReply = 2'd2;
  // Same order as MergeOutcome in model/merge_table.h, then the write and reply outcomes.
  localparam logic [2:0] Merged = 3'd0, Allocated = 3'd1, Full = 3'd2, Uncovered = 3'd3,
                         Bypass = 3'd4, Released = 3'd5, Direct = 3'd6, Idle = 3'd7;

  logic [  ENTRIES-1:0] valid_q;
  logic [LINE_BITS-1:0] line_q [ENTRIES];
  logic [MASK_BITS-1:0] mask_q [ENTRIES];
  logic [      SMS-1:0] sms_q  [ENTRIES];
  logic [ TAG_BITS-1:0] tag_q  [ENTRIES];

  // Content-addressed match and the lowest free entry (priority encoders).
  logic [ENTRIES-1:0] match;
  logic               hit, free_any;
  logic [IDX_BITS-1:0] hit_idx, free_idx;
  always_comb begin
    hit = 1'b0;
    free_any = 1'b0;
    hit_idx = '0;
    free_idx = '0;
    for (int i = ENTRIES - 1; i >= 0; i--) begin
      match[i] = valid_q[i] && (line_q[i] == op_line);
      if (match[i]) begin
        hit = 1'b1;
        hit_idx = IDX_BITS'(i);
      end
      if (!valid_q[i]) begin
        free_any = 1'b1;
        free_idx = IDX_BITS'(i);
      end
    end
  end

  logic           covered, carried;
  logic [SMS-1:0] requester;
  assign covered   = (op_mask & ~mask_q[hit_idx]) == '0;  // read: needs only fetched bytes
  assign carried   = (mask_q[hit_idx] & ~op_mask) == '0;  // reply: brings every fetched byte
  assign requester = SMS'(1) << op_sm;

  // Next outcome of the presented operation.
  logic [2:0] outcome;
  always_comb begin
    outcome = Idle;
    if (op_valid) begin
      unique case (op_kind)
        OpRead:  outcome = hit ? (covered ? Merged : Uncovered) : (free_any ? Allocated : Full);
        OpWrite: outcome = Bypass;
        OpReply: outcome = (hit && carried) ? Released : Direct;
        default: outcome = Idle;
      endcase
    end
  end

  assign look_outcome = outcome;
  assign look_entry   = (outcome == Allocated) ? free_idx : hit_idx;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      valid_q     <= '0;
      in_use      <= '0;
      rsp_valid   <= 1'b0;
      rsp_outcome <= Idle;
      rsp_entry   <= '0;
      rsp_sms     <= '0;
    end else begin
      rsp_valid   <= op_valid;
      rsp_outcome <= outcome;
      rsp_entry   <= (outcome == Allocated) ? free_idx : hit_idx;
      rsp_sms     <= (outcome == Released) ? sms_q[hit_idx] : '0;
      unique case (outcome)
        Merged: sms_q[hit_idx] <= sms_q[hit_idx] | requester;
        Allocated: begin
          valid_q[free_idx] <= 1'b1;
          line_q[free_idx]  <= op_line;
          mask_q[free_idx]  <= op_mask;
          sms_q[free_idx]   <= requester;
          tag_q[free_idx]   <= op_tag;
          in_use            <= in_use + 1'b1;
        end
        Released: begin
          valid_q[hit_idx] <= 1'b0;
          in_use           <= in_use - 1'b1;
        end
        default: ;
      endcase
    end
  end

  assign dbg_valid = valid_q[dbg_entry];
  assign dbg_line  = line_q[dbg_entry];
  assign dbg_mask  = mask_q[dbg_entry];
  assign dbg_sms   = sms_q[dbg_entry];
  assign dbg_tag   = tag_q[dbg_entry];
endmodule
