# lui, auipc
lui a0, 0
auipc a0, 0
lui a0, 1
auipc a0, 1
lui t6, 1048575
auipc t6, 1048575
lui zero, 524288
auipc zero, 524288
# integer register-register
add a0, a1, a2
add t6, zero, t6
add zero, t6, zero
sub a0, a1, a2
sub t6, zero, t6
sub zero, t6, zero
sll a0, a1, a2
sll t6, zero, t6
sll zero, t6, zero
slt a0, a1, a2
slt t6, zero, t6
slt zero, t6, zero
sltu a0, a1, a2
sltu t6, zero, t6
sltu zero, t6, zero
xor a0, a1, a2
xor t6, zero, t6
xor zero, t6, zero
srl a0, a1, a2
srl t6, zero, t6
srl zero, t6, zero
sra a0, a1, a2
sra t6, zero, t6
sra zero, t6, zero
or a0, a1, a2
or t6, zero, t6
or zero, t6, zero
and a0, a1, a2
and t6, zero, t6
and zero, t6, zero
mul a0, a1, a2
mul t6, zero, t6
mul zero, t6, zero
mulh a0, a1, a2
mulh t6, zero, t6
mulh zero, t6, zero
mulhsu a0, a1, a2
mulhsu t6, zero, t6
mulhsu zero, t6, zero
mulhu a0, a1, a2
mulhu t6, zero, t6
mulhu zero, t6, zero
div a0, a1, a2
div t6, zero, t6
div zero, t6, zero
divu a0, a1, a2
divu t6, zero, t6
divu zero, t6, zero
rem a0, a1, a2
rem t6, zero, t6
rem zero, t6, zero
remu a0, a1, a2
remu t6, zero, t6
remu zero, t6, zero
addw a0, a1, a2
addw t6, zero, t6
addw zero, t6, zero
subw a0, a1, a2
subw t6, zero, t6
subw zero, t6, zero
sllw a0, a1, a2
sllw t6, zero, t6
sllw zero, t6, zero
srlw a0, a1, a2
srlw t6, zero, t6
srlw zero, t6, zero
sraw a0, a1, a2
sraw t6, zero, t6
sraw zero, t6, zero
mulw a0, a1, a2
mulw t6, zero, t6
mulw zero, t6, zero
divw a0, a1, a2
divw t6, zero, t6
divw zero, t6, zero
divuw a0, a1, a2
divuw t6, zero, t6
divuw zero, t6, zero
remw a0, a1, a2
remw t6, zero, t6
remw zero, t6, zero
remuw a0, a1, a2
remuw t6, zero, t6
remuw zero, t6, zero
# integer register-immediate
addi a0, a1, -2048
addi t6, zero, -2048
addi a0, a1, -1
addi t6, zero, -1
addi a0, a1, 0
addi t6, zero, 0
addi a0, a1, 1
addi t6, zero, 1
addi a0, a1, 2047
addi t6, zero, 2047
slti a0, a1, -2048
slti t6, zero, -2048
slti a0, a1, -1
slti t6, zero, -1
slti a0, a1, 0
slti t6, zero, 0
slti a0, a1, 1
slti t6, zero, 1
slti a0, a1, 2047
slti t6, zero, 2047
sltiu a0, a1, -2048
sltiu t6, zero, -2048
sltiu a0, a1, -1
sltiu t6, zero, -1
sltiu a0, a1, 0
sltiu t6, zero, 0
sltiu a0, a1, 1
sltiu t6, zero, 1
sltiu a0, a1, 2047
sltiu t6, zero, 2047
xori a0, a1, -2048
xori t6, zero, -2048
xori a0, a1, -1
xori t6, zero, -1
xori a0, a1, 0
xori t6, zero, 0
xori a0, a1, 1
xori t6, zero, 1
xori a0, a1, 2047
xori t6, zero, 2047
ori a0, a1, -2048
ori t6, zero, -2048
ori a0, a1, -1
ori t6, zero, -1
ori a0, a1, 0
ori t6, zero, 0
ori a0, a1, 1
ori t6, zero, 1
ori a0, a1, 2047
ori t6, zero, 2047
andi a0, a1, -2048
andi t6, zero, -2048
andi a0, a1, -1
andi t6, zero, -1
andi a0, a1, 0
andi t6, zero, 0
andi a0, a1, 1
andi t6, zero, 1
andi a0, a1, 2047
andi t6, zero, 2047
slli a0, a1, 0
slli t6, zero, 0
slli a0, a1, 1
slli t6, zero, 1
slli a0, a1, 63
slli t6, zero, 63
srli a0, a1, 0
srli t6, zero, 0
srli a0, a1, 1
srli t6, zero, 1
srli a0, a1, 63
srli t6, zero, 63
srai a0, a1, 0
srai t6, zero, 0
srai a0, a1, 1
srai t6, zero, 1
srai a0, a1, 63
srai t6, zero, 63
addiw a0, a1, -2048
addiw t6, zero, -2048
addiw a0, a1, -1
addiw t6, zero, -1
addiw a0, a1, 0
addiw t6, zero, 0
addiw a0, a1, 1
addiw t6, zero, 1
addiw a0, a1, 2047
addiw t6, zero, 2047
slliw a0, a1, 0
slliw t6, zero, 0
slliw a0, a1, 1
slliw t6, zero, 1
slliw a0, a1, 31
slliw t6, zero, 31
srliw a0, a1, 0
srliw t6, zero, 0
srliw a0, a1, 1
srliw t6, zero, 1
srliw a0, a1, 31
srliw t6, zero, 31
sraiw a0, a1, 0
sraiw t6, zero, 0
sraiw a0, a1, 1
sraiw t6, zero, 1
sraiw a0, a1, 31
sraiw t6, zero, 31
addi zero, zero, 0
slti zero, zero, 7
# integer loads and stores
lb a0, -8(sp)
lb t6, -2048(zero)
lb zero, 2047(t6)
lh a0, -8(sp)
lh t6, -2048(zero)
lh zero, 2047(t6)
lw a0, -8(sp)
lw t6, -2048(zero)
lw zero, 2047(t6)
ld a0, -8(sp)
ld t6, -2048(zero)
ld zero, 2047(t6)
lbu a0, -8(sp)
lbu t6, -2048(zero)
lbu zero, 2047(t6)
lhu a0, -8(sp)
lhu t6, -2048(zero)
lhu zero, 2047(t6)
lwu a0, -8(sp)
lwu t6, -2048(zero)
lwu zero, 2047(t6)
sb a0, -8(sp)
sb t6, -2048(zero)
sb zero, 2047(t6)
sh a0, -8(sp)
sh t6, -2048(zero)
sh zero, 2047(t6)
sw a0, -8(sp)
sw t6, -2048(zero)
sw zero, 2047(t6)
sd a0, -8(sp)
sd t6, -2048(zero)
sd zero, 2047(t6)
# branches and jumps
beq a0, a1, 8
beq t6, zero, -4096
beq zero, t6, 4094
beq a0, a0, 0
bne a0, a1, 8
bne t6, zero, -4096
bne zero, t6, 4094
bne a0, a0, 0
blt a0, a1, 8
blt t6, zero, -4096
blt zero, t6, 4094
blt a0, a0, 0
bge a0, a1, 8
bge t6, zero, -4096
bge zero, t6, 4094
bge a0, a0, 0
bltu a0, a1, 8
bltu t6, zero, -4096
bltu zero, t6, 4094
bltu a0, a0, 0
bgeu a0, a1, 8
bgeu t6, zero, -4096
bgeu zero, t6, 4094
bgeu a0, a0, 0
jal zero, 8
jal ra, -1048576
jal t6, 1048574
jal a0, 0
jalr zero, 0(ra)
jalr zero, 0(a0)
jalr ra, 0(a0)
jalr a0, -2048(t6)
jalr t6, 2047(a0)
jalr zero, 4(ra)
# CSR access
csrrw a0, vl, a1
csrrw a0, vl, zero
csrrw zero, vl, t6
csrrwi a0, vl, 5
csrrwi zero, vl, 31
csrrwi t6, vl, 0
csrrw a0, vtype, a1
csrrw a0, vtype, zero
csrrw zero, vtype, t6
csrrwi a0, vtype, 5
csrrwi zero, vtype, 31
csrrwi t6, vtype, 0
csrrw a0, vlenb, a1
csrrw a0, vlenb, zero
csrrw zero, vlenb, t6
csrrwi a0, vlenb, 5
csrrwi zero, vlenb, 31
csrrwi t6, vlenb, 0
csrrw a0, vstart, a1
csrrw a0, vstart, zero
csrrw zero, vstart, t6
csrrwi a0, vstart, 5
csrrwi zero, vstart, 31
csrrwi t6, vstart, 0
csrrw a0, vxrm, a1
csrrw a0, vxrm, zero
csrrw zero, vxrm, t6
csrrwi a0, vxrm, 5
csrrwi zero, vxrm, 31
csrrwi t6, vxrm, 0
csrrw a0, vxsat, a1
csrrw a0, vxsat, zero
csrrw zero, vxsat, t6
csrrwi a0, vxsat, 5
csrrwi zero, vxsat, 31
csrrwi t6, vxsat, 0
csrrw a0, vcsr, a1
csrrw a0, vcsr, zero
csrrw zero, vcsr, t6
csrrwi a0, vcsr, 5
csrrwi zero, vcsr, 31
csrrwi t6, vcsr, 0
csrrw a0, fcsr, a1
csrrw a0, fcsr, zero
csrrw zero, fcsr, t6
csrrwi a0, fcsr, 5
csrrwi zero, fcsr, 31
csrrwi t6, fcsr, 0
csrrw a0, frm, a1
csrrw a0, frm, zero
csrrw zero, frm, t6
csrrwi a0, frm, 5
csrrwi zero, frm, 31
csrrwi t6, frm, 0
csrrw a0, fflags, a1
csrrw a0, fflags, zero
csrrw zero, fflags, t6
csrrwi a0, fflags, 5
csrrwi zero, fflags, 31
csrrwi t6, fflags, 0
csrrw a0, cycle, a1
csrrw a0, cycle, zero
csrrw zero, cycle, t6
csrrwi a0, cycle, 5
csrrwi zero, cycle, 31
csrrwi t6, cycle, 0
csrrw a0, time, a1
csrrw a0, time, zero
csrrw zero, time, t6
csrrwi a0, time, 5
csrrwi zero, time, 31
csrrwi t6, time, 0
csrrw a0, instret, a1
csrrw a0, instret, zero
csrrw zero, instret, t6
csrrwi a0, instret, 5
csrrwi zero, instret, 31
csrrwi t6, instret, 0
csrrw a0, 1984, a1
csrrw a0, 1984, zero
csrrw zero, 1984, t6
csrrwi a0, 1984, 5
csrrwi zero, 1984, 31
csrrwi t6, 1984, 0
csrrw a0, 4095, a1
csrrw a0, 4095, zero
csrrw zero, 4095, t6
csrrwi a0, 4095, 5
csrrwi zero, 4095, 31
csrrwi t6, 4095, 0
csrrs a0, vl, a1
csrrs a0, vl, zero
csrrs zero, vl, t6
csrrsi a0, vl, 5
csrrsi zero, vl, 31
csrrsi t6, vl, 0
csrrs a0, vtype, a1
csrrs a0, vtype, zero
csrrs zero, vtype, t6
csrrsi a0, vtype, 5
csrrsi zero, vtype, 31
csrrsi t6, vtype, 0
csrrs a0, vlenb, a1
csrrs a0, vlenb, zero
csrrs zero, vlenb, t6
csrrsi a0, vlenb, 5
csrrsi zero, vlenb, 31
csrrsi t6, vlenb, 0
csrrs a0, vstart, a1
csrrs a0, vstart, zero
csrrs zero, vstart, t6
csrrsi a0, vstart, 5
csrrsi zero, vstart, 31
csrrsi t6, vstart, 0
csrrs a0, vxrm, a1
csrrs a0, vxrm, zero
csrrs zero, vxrm, t6
csrrsi a0, vxrm, 5
csrrsi zero, vxrm, 31
csrrsi t6, vxrm, 0
csrrs a0, vxsat, a1
csrrs a0, vxsat, zero
csrrs zero, vxsat, t6
csrrsi a0, vxsat, 5
csrrsi zero, vxsat, 31
csrrsi t6, vxsat, 0
csrrs a0, vcsr, a1
csrrs a0, vcsr, zero
csrrs zero, vcsr, t6
csrrsi a0, vcsr, 5
csrrsi zero, vcsr, 31
csrrsi t6, vcsr, 0
csrrs a0, fcsr, a1
csrrs a0, fcsr, zero
csrrs zero, fcsr, t6
csrrsi a0, fcsr, 5
csrrsi zero, fcsr, 31
csrrsi t6, fcsr, 0
csrrs a0, frm, a1
csrrs a0, frm, zero
csrrs zero, frm, t6
csrrsi a0, frm, 5
csrrsi zero, frm, 31
csrrsi t6, frm, 0
csrrs a0, fflags, a1
csrrs a0, fflags, zero
csrrs zero, fflags, t6
csrrsi a0, fflags, 5
csrrsi zero, fflags, 31
csrrsi t6, fflags, 0
csrrs a0, cycle, a1
csrrs a0, cycle, zero
csrrs zero, cycle, t6
csrrsi a0, cycle, 5
csrrsi zero, cycle, 31
csrrsi t6, cycle, 0
csrrs a0, time, a1
csrrs a0, time, zero
csrrs zero, time, t6
csrrsi a0, time, 5
csrrsi zero, time, 31
csrrsi t6, time, 0
csrrs a0, instret, a1
csrrs a0, instret, zero
csrrs zero, instret, t6
csrrsi a0, instret, 5
csrrsi zero, instret, 31
csrrsi t6, instret, 0
csrrs a0, 1984, a1
csrrs a0, 1984, zero
csrrs zero, 1984, t6
csrrsi a0, 1984, 5
csrrsi zero, 1984, 31
csrrsi t6, 1984, 0
csrrs a0, 4095, a1
csrrs a0, 4095, zero
csrrs zero, 4095, t6
csrrsi a0, 4095, 5
csrrsi zero, 4095, 31
csrrsi t6, 4095, 0
csrrc a0, vl, a1
csrrc a0, vl, zero
csrrc zero, vl, t6
csrrci a0, vl, 5
csrrci zero, vl, 31
csrrci t6, vl, 0
csrrc a0, vtype, a1
csrrc a0, vtype, zero
csrrc zero, vtype, t6
csrrci a0, vtype, 5
csrrci zero, vtype, 31
csrrci t6, vtype, 0
csrrc a0, vlenb, a1
csrrc a0, vlenb, zero
csrrc zero, vlenb, t6
csrrci a0, vlenb, 5
csrrci zero, vlenb, 31
csrrci t6, vlenb, 0
csrrc a0, vstart, a1
csrrc a0, vstart, zero
csrrc zero, vstart, t6
csrrci a0, vstart, 5
csrrci zero, vstart, 31
csrrci t6, vstart, 0
csrrc a0, vxrm, a1
csrrc a0, vxrm, zero
csrrc zero, vxrm, t6
csrrci a0, vxrm, 5
csrrci zero, vxrm, 31
csrrci t6, vxrm, 0
csrrc a0, vxsat, a1
csrrc a0, vxsat, zero
csrrc zero, vxsat, t6
csrrci a0, vxsat, 5
csrrci zero, vxsat, 31
csrrci t6, vxsat, 0
csrrc a0, vcsr, a1
csrrc a0, vcsr, zero
csrrc zero, vcsr, t6
csrrci a0, vcsr, 5
csrrci zero, vcsr, 31
csrrci t6, vcsr, 0
csrrc a0, fcsr, a1
csrrc a0, fcsr, zero
csrrc zero, fcsr, t6
csrrci a0, fcsr, 5
csrrci zero, fcsr, 31
csrrci t6, fcsr, 0
csrrc a0, frm, a1
csrrc a0, frm, zero
csrrc zero, frm, t6
csrrci a0, frm, 5
csrrci zero, frm, 31
csrrci t6, frm, 0
csrrc a0, fflags, a1
csrrc a0, fflags, zero
csrrc zero, fflags, t6
csrrci a0, fflags, 5
csrrci zero, fflags, 31
csrrci t6, fflags, 0
csrrc a0, cycle, a1
csrrc a0, cycle, zero
csrrc zero, cycle, t6
csrrci a0, cycle, 5
csrrci zero, cycle, 31
csrrci t6, cycle, 0
csrrc a0, time, a1
csrrc a0, time, zero
csrrc zero, time, t6
csrrci a0, time, 5
csrrci zero, time, 31
csrrci t6, time, 0
csrrc a0, instret, a1
csrrc a0, instret, zero
csrrc zero, instret, t6
csrrci a0, instret, 5
csrrci zero, instret, 31
csrrci t6, instret, 0
csrrc a0, 1984, a1
csrrc a0, 1984, zero
csrrc zero, 1984, t6
csrrci a0, 1984, 5
csrrci zero, 1984, 31
csrrci t6, 1984, 0
csrrc a0, 4095, a1
csrrc a0, 4095, zero
csrrc zero, 4095, t6
csrrci a0, 4095, 5
csrrci zero, 4095, 31
csrrci t6, 4095, 0
# fences and atomics
fence iorw, iorw
fence rw, rw
fence r, rw
fence io, w
lr.w a0, (a2)
lr.w.aq a0, (a2)
lr.w.rl a0, (a2)
lr.w.aqrl a0, (a2)
lr.w t6, (zero)
lr.d a0, (a2)
lr.d.aq a0, (a2)
lr.d.rl a0, (a2)
lr.d.aqrl a0, (a2)
lr.d t6, (zero)
sc.w a0, a1, (a2)
sc.w.aq a0, a1, (a2)
sc.w.rl a0, a1, (a2)
sc.w.aqrl a0, a1, (a2)
sc.w t6, t6, (zero)
sc.d a0, a1, (a2)
sc.d.aq a0, a1, (a2)
sc.d.rl a0, a1, (a2)
sc.d.aqrl a0, a1, (a2)
sc.d t6, t6, (zero)
amoswap.w a0, a1, (a2)
amoswap.w.aq a0, a1, (a2)
amoswap.w.rl a0, a1, (a2)
amoswap.w.aqrl a0, a1, (a2)
amoswap.w t6, t6, (zero)
amoswap.d a0, a1, (a2)
amoswap.d.aq a0, a1, (a2)
amoswap.d.rl a0, a1, (a2)
amoswap.d.aqrl a0, a1, (a2)
amoswap.d t6, t6, (zero)
amoadd.w a0, a1, (a2)
amoadd.w.aq a0, a1, (a2)
amoadd.w.rl a0, a1, (a2)
amoadd.w.aqrl a0, a1, (a2)
amoadd.w t6, t6, (zero)
amoadd.d a0, a1, (a2)
amoadd.d.aq a0, a1, (a2)
amoadd.d.rl a0, a1, (a2)
amoadd.d.aqrl a0, a1, (a2)
amoadd.d t6, t6, (zero)
amoxor.w a0, a1, (a2)
amoxor.w.aq a0, a1, (a2)
amoxor.w.rl a0, a1, (a2)
amoxor.w.aqrl a0, a1, (a2)
amoxor.w t6, t6, (zero)
amoxor.d a0, a1, (a2)
amoxor.d.aq a0, a1, (a2)
amoxor.d.rl a0, a1, (a2)
amoxor.d.aqrl a0, a1, (a2)
amoxor.d t6, t6, (zero)
amoand.w a0, a1, (a2)
amoand.w.aq a0, a1, (a2)
amoand.w.rl a0, a1, (a2)
amoand.w.aqrl a0, a1, (a2)
amoand.w t6, t6, (zero)
amoand.d a0, a1, (a2)
amoand.d.aq a0, a1, (a2)
amoand.d.rl a0, a1, (a2)
amoand.d.aqrl a0, a1, (a2)
amoand.d t6, t6, (zero)
amoor.w a0, a1, (a2)
amoor.w.aq a0, a1, (a2)
amoor.w.rl a0, a1, (a2)
amoor.w.aqrl a0, a1, (a2)
amoor.w t6, t6, (zero)
amoor.d a0, a1, (a2)
amoor.d.aq a0, a1, (a2)
amoor.d.rl a0, a1, (a2)
amoor.d.aqrl a0, a1, (a2)
amoor.d t6, t6, (zero)
amomin.w a0, a1, (a2)
amomin.w.aq a0, a1, (a2)
amomin.w.rl a0, a1, (a2)
amomin.w.aqrl a0, a1, (a2)
amomin.w t6, t6, (zero)
amomin.d a0, a1, (a2)
amomin.d.aq a0, a1, (a2)
amomin.d.rl a0, a1, (a2)
amomin.d.aqrl a0, a1, (a2)
amomin.d t6, t6, (zero)
amomax.w a0, a1, (a2)
amomax.w.aq a0, a1, (a2)
amomax.w.rl a0, a1, (a2)
amomax.w.aqrl a0, a1, (a2)
amomax.w t6, t6, (zero)
amomax.d a0, a1, (a2)
amomax.d.aq a0, a1, (a2)
amomax.d.rl a0, a1, (a2)
amomax.d.aqrl a0, a1, (a2)
amomax.d t6, t6, (zero)
amominu.w a0, a1, (a2)
amominu.w.aq a0, a1, (a2)
amominu.w.rl a0, a1, (a2)
amominu.w.aqrl a0, a1, (a2)
amominu.w t6, t6, (zero)
amominu.d a0, a1, (a2)
amominu.d.aq a0, a1, (a2)
amominu.d.rl a0, a1, (a2)
amominu.d.aqrl a0, a1, (a2)
amominu.d t6, t6, (zero)
amomaxu.w a0, a1, (a2)
amomaxu.w.aq a0, a1, (a2)
amomaxu.w.rl a0, a1, (a2)
amomaxu.w.aqrl a0, a1, (a2)
amomaxu.w t6, t6, (zero)
amomaxu.d a0, a1, (a2)
amomaxu.d.aq a0, a1, (a2)
amomaxu.d.rl a0, a1, (a2)
amomaxu.d.aqrl a0, a1, (a2)
amomaxu.d t6, t6, (zero)
# scalar floating point
flw fa0, -8(sp)
fsw fa0, -8(sp)
flw ft11, 2047(zero)
fsw ft11, 2047(zero)
flw ft0, -2048(t6)
fsw ft0, -2048(t6)
fadd.s fa0, fa1, fa2, rne
fadd.s fa0, fa1, fa2, rtz
fadd.s fa0, fa1, fa2, rdn
fadd.s fa0, fa1, fa2, rup
fadd.s fa0, fa1, fa2, rmm
fadd.s fa0, fa1, fa2, dyn
fadd.s ft11, ft0, ft11, dyn
fsub.s fa0, fa1, fa2, rne
fsub.s fa0, fa1, fa2, rtz
fsub.s fa0, fa1, fa2, rdn
fsub.s fa0, fa1, fa2, rup
fsub.s fa0, fa1, fa2, rmm
fsub.s fa0, fa1, fa2, dyn
fsub.s ft11, ft0, ft11, dyn
fmul.s fa0, fa1, fa2, rne
fmul.s fa0, fa1, fa2, rtz
fmul.s fa0, fa1, fa2, rdn
fmul.s fa0, fa1, fa2, rup
fmul.s fa0, fa1, fa2, rmm
fmul.s fa0, fa1, fa2, dyn
fmul.s ft11, ft0, ft11, dyn
fdiv.s fa0, fa1, fa2, rne
fdiv.s fa0, fa1, fa2, rtz
fdiv.s fa0, fa1, fa2, rdn
fdiv.s fa0, fa1, fa2, rup
fdiv.s fa0, fa1, fa2, rmm
fdiv.s fa0, fa1, fa2, dyn
fdiv.s ft11, ft0, ft11, dyn
fsqrt.s fa0, ft11, rne
fsqrt.s fa0, ft11, rtz
fsqrt.s fa0, ft11, rdn
fsqrt.s fa0, ft11, rup
fsqrt.s fa0, ft11, rmm
fsqrt.s fa0, ft11, dyn
fsgnj.s fa0, fa1, fa2
fsgnj.s ft11, ft0, ft0
fsgnjn.s fa0, fa1, fa2
fsgnjn.s ft11, ft0, ft0
fsgnjx.s fa0, fa1, fa2
fsgnjx.s ft11, ft0, ft0
fmin.s fa0, fa1, fa2
fmin.s ft11, ft0, ft0
fmax.s fa0, fa1, fa2
fmax.s ft11, ft0, ft0
fmadd.s fa0, fa1, fa2, fa3, dyn
fmadd.s fa0, fa1, fa2, fa3, rne
fmadd.s fa0, fa1, fa2, fa3, rtz
fmadd.s ft11, ft0, ft11, ft0, rmm
fmsub.s fa0, fa1, fa2, fa3, dyn
fmsub.s fa0, fa1, fa2, fa3, rne
fmsub.s fa0, fa1, fa2, fa3, rtz
fmsub.s ft11, ft0, ft11, ft0, rmm
fnmsub.s fa0, fa1, fa2, fa3, dyn
fnmsub.s fa0, fa1, fa2, fa3, rne
fnmsub.s fa0, fa1, fa2, fa3, rtz
fnmsub.s ft11, ft0, ft11, ft0, rmm
fnmadd.s fa0, fa1, fa2, fa3, dyn
fnmadd.s fa0, fa1, fa2, fa3, rne
fnmadd.s fa0, fa1, fa2, fa3, rtz
fnmadd.s ft11, ft0, ft11, ft0, rmm
feq.s a0, fa0, fa1
feq.s t6, ft11, ft0
flt.s a0, fa0, fa1
flt.s t6, ft11, ft0
fle.s a0, fa0, fa1
fle.s t6, ft11, ft0
fcvt.w.s a0, fa0, rne
fcvt.s.w fa0, a0, rne
fcvt.w.s a0, fa0, rtz
fcvt.s.w fa0, a0, rtz
fcvt.w.s a0, fa0, rdn
fcvt.s.w fa0, a0, rdn
fcvt.w.s a0, fa0, rup
fcvt.s.w fa0, a0, rup
fcvt.w.s a0, fa0, rmm
fcvt.s.w fa0, a0, rmm
fcvt.w.s a0, fa0, dyn
fcvt.s.w fa0, a0, dyn
fcvt.wu.s a0, fa0, rne
fcvt.s.wu fa0, a0, rne
fcvt.wu.s a0, fa0, rtz
fcvt.s.wu fa0, a0, rtz
fcvt.wu.s a0, fa0, rdn
fcvt.s.wu fa0, a0, rdn
fcvt.wu.s a0, fa0, rup
fcvt.s.wu fa0, a0, rup
fcvt.wu.s a0, fa0, rmm
fcvt.s.wu fa0, a0, rmm
fcvt.wu.s a0, fa0, dyn
fcvt.s.wu fa0, a0, dyn
fcvt.l.s a0, fa0, rne
fcvt.s.l fa0, a0, rne
fcvt.l.s a0, fa0, rtz
fcvt.s.l fa0, a0, rtz
fcvt.l.s a0, fa0, rdn
fcvt.s.l fa0, a0, rdn
fcvt.l.s a0, fa0, rup
fcvt.s.l fa0, a0, rup
fcvt.l.s a0, fa0, rmm
fcvt.s.l fa0, a0, rmm
fcvt.l.s a0, fa0, dyn
fcvt.s.l fa0, a0, dyn
fcvt.lu.s a0, fa0, rne
fcvt.s.lu fa0, a0, rne
fcvt.lu.s a0, fa0, rtz
fcvt.s.lu fa0, a0, rtz
fcvt.lu.s a0, fa0, rdn
fcvt.s.lu fa0, a0, rdn
fcvt.lu.s a0, fa0, rup
fcvt.s.lu fa0, a0, rup
fcvt.lu.s a0, fa0, rmm
fcvt.s.lu fa0, a0, rmm
fcvt.lu.s a0, fa0, dyn
fcvt.s.lu fa0, a0, dyn
fcvt.s.d fa0, fa1, rne
fcvt.s.d fa0, fa1, rtz
fcvt.s.d fa0, fa1, rdn
fcvt.s.d fa0, fa1, rup
fcvt.s.d fa0, fa1, rmm
fcvt.s.d fa0, fa1, dyn
fmv.x.w a0, fa0
fmv.x.w t6, ft11
fmv.w.x fa0, a0
fmv.w.x ft11, zero
fld fa0, -8(sp)
fsd fa0, -8(sp)
fld ft11, 2047(zero)
fsd ft11, 2047(zero)
fld ft0, -2048(t6)
fsd ft0, -2048(t6)
fadd.d fa0, fa1, fa2, rne
fadd.d fa0, fa1, fa2, rtz
fadd.d fa0, fa1, fa2, rdn
fadd.d fa0, fa1, fa2, rup
fadd.d fa0, fa1, fa2, rmm
fadd.d fa0, fa1, fa2, dyn
fadd.d ft11, ft0, ft11, dyn
fsub.d fa0, fa1, fa2, rne
fsub.d fa0, fa1, fa2, rtz
fsub.d fa0, fa1, fa2, rdn
fsub.d fa0, fa1, fa2, rup
fsub.d fa0, fa1, fa2, rmm
fsub.d fa0, fa1, fa2, dyn
fsub.d ft11, ft0, ft11, dyn
fmul.d fa0, fa1, fa2, rne
fmul.d fa0, fa1, fa2, rtz
fmul.d fa0, fa1, fa2, rdn
fmul.d fa0, fa1, fa2, rup
fmul.d fa0, fa1, fa2, rmm
fmul.d fa0, fa1, fa2, dyn
fmul.d ft11, ft0, ft11, dyn
fdiv.d fa0, fa1, fa2, rne
fdiv.d fa0, fa1, fa2, rtz
fdiv.d fa0, fa1, fa2, rdn
fdiv.d fa0, fa1, fa2, rup
fdiv.d fa0, fa1, fa2, rmm
fdiv.d fa0, fa1, fa2, dyn
fdiv.d ft11, ft0, ft11, dyn
fsqrt.d fa0, ft11, rne
fsqrt.d fa0, ft11, rtz
fsqrt.d fa0, ft11, rdn
fsqrt.d fa0, ft11, rup
fsqrt.d fa0, ft11, rmm
fsqrt.d fa0, ft11, dyn
fsgnj.d fa0, fa1, fa2
fsgnj.d ft11, ft0, ft0
fsgnjn.d fa0, fa1, fa2
fsgnjn.d ft11, ft0, ft0
fsgnjx.d fa0, fa1, fa2
fsgnjx.d ft11, ft0, ft0
fmin.d fa0, fa1, fa2
fmin.d ft11, ft0, ft0
fmax.d fa0, fa1, fa2
fmax.d ft11, ft0, ft0
fmadd.d fa0, fa1, fa2, fa3, dyn
fmadd.d fa0, fa1, fa2, fa3, rne
fmadd.d fa0, fa1, fa2, fa3, rtz
fmadd.d ft11, ft0, ft11, ft0, rmm
fmsub.d fa0, fa1, fa2, fa3, dyn
fmsub.d fa0, fa1, fa2, fa3, rne
fmsub.d fa0, fa1, fa2, fa3, rtz
fmsub.d ft11, ft0, ft11, ft0, rmm
fnmsub.d fa0, fa1, fa2, fa3, dyn
fnmsub.d fa0, fa1, fa2, fa3, rne
fnmsub.d fa0, fa1, fa2, fa3, rtz
fnmsub.d ft11, ft0, ft11, ft0, rmm
fnmadd.d fa0, fa1, fa2, fa3, dyn
fnmadd.d fa0, fa1, fa2, fa3, rne
fnmadd.d fa0, fa1, fa2, fa3, rtz
fnmadd.d ft11, ft0, ft11, ft0, rmm
feq.d a0, fa0, fa1
feq.d t6, ft11, ft0
flt.d a0, fa0, fa1
flt.d t6, ft11, ft0
fle.d a0, fa0, fa1
fle.d t6, ft11, ft0
fcvt.w.d a0, fa0, rne
fcvt.d.w fa0, a0
fcvt.w.d a0, fa0, rtz
fcvt.d.w fa0, a0, rtz
fcvt.w.d a0, fa0, rdn
fcvt.d.w fa0, a0, rdn
fcvt.w.d a0, fa0, rup
fcvt.d.w fa0, a0, rup
fcvt.w.d a0, fa0, rmm
fcvt.d.w fa0, a0, rmm
fcvt.w.d a0, fa0, dyn
fcvt.d.w fa0, a0, dyn
fcvt.wu.d a0, fa0, rne
fcvt.d.wu fa0, a0
fcvt.wu.d a0, fa0, rtz
fcvt.d.wu fa0, a0, rtz
fcvt.wu.d a0, fa0, rdn
fcvt.d.wu fa0, a0, rdn
fcvt.wu.d a0, fa0, rup
fcvt.d.wu fa0, a0, rup
fcvt.wu.d a0, fa0, rmm
fcvt.d.wu fa0, a0, rmm
fcvt.wu.d a0, fa0, dyn
fcvt.d.wu fa0, a0, dyn
fcvt.l.d a0, fa0, rne
fcvt.d.l fa0, a0, rne
fcvt.l.d a0, fa0, rtz
fcvt.d.l fa0, a0, rtz
fcvt.l.d a0, fa0, rdn
fcvt.d.l fa0, a0, rdn
fcvt.l.d a0, fa0, rup
fcvt.d.l fa0, a0, rup
fcvt.l.d a0, fa0, rmm
fcvt.d.l fa0, a0, rmm
fcvt.l.d a0, fa0, dyn
fcvt.d.l fa0, a0, dyn
fcvt.lu.d a0, fa0, rne
fcvt.d.lu fa0, a0, rne
fcvt.lu.d a0, fa0, rtz
fcvt.d.lu fa0, a0, rtz
fcvt.lu.d a0, fa0, rdn
fcvt.d.lu fa0, a0, rdn
fcvt.lu.d a0, fa0, rup
fcvt.d.lu fa0, a0, rup
fcvt.lu.d a0, fa0, rmm
fcvt.d.lu fa0, a0, rmm
fcvt.lu.d a0, fa0, dyn
fcvt.d.lu fa0, a0, dyn
fcvt.d.s fa0, fa1
fcvt.d.s fa0, fa1, rtz
fcvt.d.s fa0, fa1, rdn
fcvt.d.s fa0, fa1, rup
fcvt.d.s fa0, fa1, rmm
fcvt.d.s fa0, fa1, dyn
fmv.x.d a0, fa0
fmv.x.d t6, ft11
fmv.d.x fa0, a0
fmv.d.x ft11, zero
# vector configuration
vsetvli t0, a0, e8, mf8, ta, ma
vsetvli t0, a0, e8, mf8, tu, ma
vsetvli t0, a0, e8, mf8, ta, mu
vsetvli t0, a0, e8, mf8, tu, mu
vsetivli t0, 31, e8, mf8, ta, ma
vsetvli t0, a0, e8, mf4, ta, ma
vsetvli t0, a0, e8, mf4, tu, ma
vsetvli t0, a0, e8, mf4, ta, mu
vsetvli t0, a0, e8, mf4, tu, mu
vsetivli t0, 31, e8, mf4, ta, ma
vsetvli t0, a0, e8, mf2, ta, ma
vsetvli t0, a0, e8, mf2, tu, ma
vsetvli t0, a0, e8, mf2, ta, mu
vsetvli t0, a0, e8, mf2, tu, mu
vsetivli t0, 31, e8, mf2, ta, ma
vsetvli t0, a0, e8, m1, ta, ma
vsetvli t0, a0, e8, m1, tu, ma
vsetvli t0, a0, e8, m1, ta, mu
vsetvli t0, a0, e8, m1, tu, mu
vsetivli t0, 31, e8, m1, ta, ma
vsetvli t0, a0, e8, m2, ta, ma
vsetvli t0, a0, e8, m2, tu, ma
vsetvli t0, a0, e8, m2, ta, mu
vsetvli t0, a0, e8, m2, tu, mu
vsetivli t0, 31, e8, m2, ta, ma
vsetvli t0, a0, e8, m4, ta, ma
vsetvli t0, a0, e8, m4, tu, ma
vsetvli t0, a0, e8, m4, ta, mu
vsetvli t0, a0, e8, m4, tu, mu
vsetivli t0, 31, e8, m4, ta, ma
vsetvli t0, a0, e8, m8, ta, ma
vsetvli t0, a0, e8, m8, tu, ma
vsetvli t0, a0, e8, m8, ta, mu
vsetvli t0, a0, e8, m8, tu, mu
vsetivli t0, 31, e8, m8, ta, ma
vsetvli t0, a0, e16, mf8, ta, ma
vsetvli t0, a0, e16, mf8, tu, ma
vsetvli t0, a0, e16, mf8, ta, mu
vsetvli t0, a0, e16, mf8, tu, mu
vsetivli t0, 31, e16, mf8, ta, ma
vsetvli t0, a0, e16, mf4, ta, ma
vsetvli t0, a0, e16, mf4, tu, ma
vsetvli t0, a0, e16, mf4, ta, mu
vsetvli t0, a0, e16, mf4, tu, mu
vsetivli t0, 31, e16, mf4, ta, ma
vsetvli t0, a0, e16, mf2, ta, ma
vsetvli t0, a0, e16, mf2, tu, ma
vsetvli t0, a0, e16, mf2, ta, mu
vsetvli t0, a0, e16, mf2, tu, mu
vsetivli t0, 31, e16, mf2, ta, ma
vsetvli t0, a0, e16, m1, ta, ma
vsetvli t0, a0, e16, m1, tu, ma
vsetvli t0, a0, e16, m1, ta, mu
vsetvli t0, a0, e16, m1, tu, mu
vsetivli t0, 31, e16, m1, ta, ma
vsetvli t0, a0, e16, m2, ta, ma
vsetvli t0, a0, e16, m2, tu, ma
vsetvli t0, a0, e16, m2, ta, mu
vsetvli t0, a0, e16, m2, tu, mu
vsetivli t0, 31, e16, m2, ta, ma
vsetvli t0, a0, e16, m4, ta, ma
vsetvli t0, a0, e16, m4, tu, ma
vsetvli t0, a0, e16, m4, ta, mu
vsetvli t0, a0, e16, m4, tu, mu
vsetivli t0, 31, e16, m4, ta, ma
vsetvli t0, a0, e16, m8, ta, ma
vsetvli t0, a0, e16, m8, tu, ma
vsetvli t0, a0, e16, m8, ta, mu
vsetvli t0, a0, e16, m8, tu, mu
vsetivli t0, 31, e16, m8, ta, ma
vsetvli t0, a0, e32, mf8, ta, ma
vsetvli t0, a0, e32, mf8, tu, ma
vsetvli t0, a0, e32, mf8, ta, mu
vsetvli t0, a0, e32, mf8, tu, mu
vsetivli t0, 31, e32, mf8, ta, ma
vsetvli t0, a0, e32, mf4, ta, ma
vsetvli t0, a0, e32, mf4, tu, ma
vsetvli t0, a0, e32, mf4, ta, mu
vsetvli t0, a0, e32, mf4, tu, mu
vsetivli t0, 31, e32, mf4, ta, ma
vsetvli t0, a0, e32, mf2, ta, ma
vsetvli t0, a0, e32, mf2, tu, ma
vsetvli t0, a0, e32, mf2, ta, mu
vsetvli t0, a0, e32, mf2, tu, mu
vsetivli t0, 31, e32, mf2, ta, ma
vsetvli t0, a0, e32, m1, ta, ma
vsetvli t0, a0, e32, m1, tu, ma
vsetvli t0, a0, e32, m1, ta, mu
vsetvli t0, a0, e32, m1, tu, mu
vsetivli t0, 31, e32, m1, ta, ma
vsetvli t0, a0, e32, m2, ta, ma
vsetvli t0, a0, e32, m2, tu, ma
vsetvli t0, a0, e32, m2, ta, mu
vsetvli t0, a0, e32, m2, tu, mu
vsetivli t0, 31, e32, m2, ta, ma
vsetvli t0, a0, e32, m4, ta, ma
vsetvli t0, a0, e32, m4, tu, ma
vsetvli t0, a0, e32, m4, ta, mu
vsetvli t0, a0, e32, m4, tu, mu
vsetivli t0, 31, e32, m4, ta, ma
vsetvli t0, a0, e32, m8, ta, ma
vsetvli t0, a0, e32, m8, tu, ma
vsetvli t0, a0, e32, m8, ta, mu
vsetvli t0, a0, e32, m8, tu, mu
vsetivli t0, 31, e32, m8, ta, ma
vsetvli t0, a0, e64, mf8, ta, ma
vsetvli t0, a0, e64, mf8, tu, ma
vsetvli t0, a0, e64, mf8, ta, mu
vsetvli t0, a0, e64, mf8, tu, mu
vsetivli t0, 31, e64, mf8, ta, ma
vsetvli t0, a0, e64, mf4, ta, ma
vsetvli t0, a0, e64, mf4, tu, ma
vsetvli t0, a0, e64, mf4, ta, mu
vsetvli t0, a0, e64, mf4, tu, mu
vsetivli t0, 31, e64, mf4, ta, ma
vsetvli t0, a0, e64, mf2, ta, ma
vsetvli t0, a0, e64, mf2, tu, ma
vsetvli t0, a0, e64, mf2, ta, mu
vsetvli t0, a0, e64, mf2, tu, mu
vsetivli t0, 31, e64, mf2, ta, ma
vsetvli t0, a0, e64, m1, ta, ma
vsetvli t0, a0, e64, m1, tu, ma
vsetvli t0, a0, e64, m1, ta, mu
vsetvli t0, a0, e64, m1, tu, mu
vsetivli t0, 31, e64, m1, ta, ma
vsetvli t0, a0, e64, m2, ta, ma
vsetvli t0, a0, e64, m2, tu, ma
vsetvli t0, a0, e64, m2, ta, mu
vsetvli t0, a0, e64, m2, tu, mu
vsetivli t0, 31, e64, m2, ta, ma
vsetvli t0, a0, e64, m4, ta, ma
vsetvli t0, a0, e64, m4, tu, ma
vsetvli t0, a0, e64, m4, ta, mu
vsetvli t0, a0, e64, m4, tu, mu
vsetivli t0, 31, e64, m4, ta, ma
vsetvli t0, a0, e64, m8, ta, ma
vsetvli t0, a0, e64, m8, tu, ma
vsetvli t0, a0, e64, m8, ta, mu
vsetvli t0, a0, e64, m8, tu, mu
vsetivli t0, 31, e64, m8, ta, ma
vsetvli zero, zero, e32, m8, ta, ma
vsetvli t6, t6, e32, m8, tu, ma
vsetvli a0, zero, e32, m8, ta, ma
vsetivli zero, 0, e32, m8, ta, ma
vsetivli t6, 16, e32, m8, ta, mu
vsetvl a0, a1, a2
vsetvl zero, t6, zero
# vector loads and stores
vle8.v v8, (a1)
vse8.v v8, (a1)
vle8.v v8, (a1), v0.t
vse8.v v8, (a1), v0.t
vle8ff.v v8, (a1)
vle8ff.v v8, (a1), v0.t
vlse8.v v8, (a1), a2
vsse8.v v8, (a1), a2
vlse8.v v8, (a1), a2, v0.t
vsse8.v v8, (a1), a2, v0.t
vluxei8.v v8, (a1), v16
vsuxei8.v v8, (a1), v16
vluxei8.v v8, (a1), v16, v0.t
vsuxei8.v v8, (a1), v16, v0.t
vloxei8.v v8, (a1), v16
vsoxei8.v v8, (a1), v16
vloxei8.v v8, (a1), v16, v0.t
vsoxei8.v v8, (a1), v16, v0.t
vle8.v v31, (t6)
vse8.v v31, (zero)
vlse8.v v31, (t6), t6
vsse8.v v31, (zero), t6
vlse8.v v31, (t6), zero
vsse8.v v31, (zero), zero
vloxei8.v v31, (t6), v0
vsoxei8.v v31, (zero), v0
vluxei8.v v0, (t6), v31
vsuxei8.v v0, (zero), v31
vle16.v v8, (a1)
vse16.v v8, (a1)
vle16.v v8, (a1), v0.t
vse16.v v8, (a1), v0.t
vle16ff.v v8, (a1)
vle16ff.v v8, (a1), v0.t
vlse16.v v8, (a1), a2
vsse16.v v8, (a1), a2
vlse16.v v8, (a1), a2, v0.t
vsse16.v v8, (a1), a2, v0.t
vluxei16.v v8, (a1), v16
vsuxei16.v v8, (a1), v16
vluxei16.v v8, (a1), v16, v0.t
vsuxei16.v v8, (a1), v16, v0.t
vloxei16.v v8, (a1), v16
vsoxei16.v v8, (a1), v16
vloxei16.v v8, (a1), v16, v0.t
vsoxei16.v v8, (a1), v16, v0.t
vle16.v v31, (t6)
vse16.v v31, (zero)
vlse16.v v31, (t6), t6
vsse16.v v31, (zero), t6
vlse16.v v31, (t6), zero
vsse16.v v31, (zero), zero
vloxei16.v v31, (t6), v0
vsoxei16.v v31, (zero), v0
vluxei16.v v0, (t6), v31
vsuxei16.v v0, (zero), v31
vle32.v v8, (a1)
vse32.v v8, (a1)
vle32.v v8, (a1), v0.t
vse32.v v8, (a1), v0.t
vle32ff.v v8, (a1)
vle32ff.v v8, (a1), v0.t
vlse32.v v8, (a1), a2
vsse32.v v8, (a1), a2
vlse32.v v8, (a1), a2, v0.t
vsse32.v v8, (a1), a2, v0.t
vluxei32.v v8, (a1), v16
vsuxei32.v v8, (a1), v16
vluxei32.v v8, (a1), v16, v0.t
vsuxei32.v v8, (a1), v16, v0.t
vloxei32.v v8, (a1), v16
vsoxei32.v v8, (a1), v16
vloxei32.v v8, (a1), v16, v0.t
vsoxei32.v v8, (a1), v16, v0.t
vle32.v v31, (t6)
vse32.v v31, (zero)
vlse32.v v31, (t6), t6
vsse32.v v31, (zero), t6
vlse32.v v31, (t6), zero
vsse32.v v31, (zero), zero
vloxei32.v v31, (t6), v0
vsoxei32.v v31, (zero), v0
vluxei32.v v0, (t6), v31
vsuxei32.v v0, (zero), v31
vle64.v v8, (a1)
vse64.v v8, (a1)
vle64.v v8, (a1), v0.t
vse64.v v8, (a1), v0.t
vle64ff.v v8, (a1)
vle64ff.v v8, (a1), v0.t
vlse64.v v8, (a1), a2
vsse64.v v8, (a1), a2
vlse64.v v8, (a1), a2, v0.t
vsse64.v v8, (a1), a2, v0.t
vluxei64.v v8, (a1), v16
vsuxei64.v v8, (a1), v16
vluxei64.v v8, (a1), v16, v0.t
vsuxei64.v v8, (a1), v16, v0.t
vloxei64.v v8, (a1), v16
vsoxei64.v v8, (a1), v16
vloxei64.v v8, (a1), v16, v0.t
vsoxei64.v v8, (a1), v16, v0.t
vle64.v v31, (t6)
vse64.v v31, (zero)
vlse64.v v31, (t6), t6
vsse64.v v31, (zero), t6
vlse64.v v31, (t6), zero
vsse64.v v31, (zero), zero
vloxei64.v v31, (t6), v0
vsoxei64.v v31, (zero), v0
vluxei64.v v0, (t6), v31
vsuxei64.v v0, (zero), v31
vl1re8.v v8, (a0)
vl1re16.v v8, (a0)
vl1re32.v v8, (a0)
vl1re64.v v8, (a0)
vl1re64.v v31, (t6)
vl1re8.v v0, (zero)
vs1r.v v8, (a0)
vs1r.v v31, (t6)
vs1r.v v0, (zero)
vl2re8.v v8, (a0)
vl2re16.v v8, (a0)
vl2re32.v v8, (a0)
vl2re64.v v8, (a0)
vl2re64.v v30, (t6)
vl2re8.v v0, (zero)
vs2r.v v8, (a0)
vs2r.v v30, (t6)
vs2r.v v0, (zero)
vl4re8.v v8, (a0)
vl4re16.v v8, (a0)
vl4re32.v v8, (a0)
vl4re64.v v8, (a0)
vl4re64.v v28, (t6)
vl4re8.v v0, (zero)
vs4r.v v8, (a0)
vs4r.v v28, (t6)
vs4r.v v0, (zero)
vl8re8.v v8, (a0)
vl8re16.v v8, (a0)
vl8re32.v v8, (a0)
vl8re64.v v8, (a0)
vl8re64.v v24, (t6)
vl8re8.v v0, (zero)
vs8r.v v8, (a0)
vs8r.v v24, (t6)
vs8r.v v0, (zero)
vlm.v v0, (a0)
vsm.v v0, (a0)
vlm.v v31, (t6)
vsm.v v31, (t6)
vlm.v v8, (zero)
vsm.v v8, (zero)
# vector binary operations
vadd.vv v8, v16, v24
vadd.vv v8, v16, v24, v0.t
vadd.vx v8, v16, a0
vadd.vx v8, v16, a0, v0.t
vadd.vi v8, v16, -16
vadd.vi v8, v16, -16, v0.t
vadd.vi v8, v16, -1
vadd.vi v8, v16, -1, v0.t
vadd.vi v8, v16, 0
vadd.vi v8, v16, 0, v0.t
vadd.vi v8, v16, 15
vadd.vi v8, v16, 15, v0.t
vadd.vv v31, v0, v0
vadd.vx v31, v0, t6
vadd.vi v31, v0, -16
vadd.vi v31, v0, -1
vadd.vi v31, v0, 0
vadd.vi v31, v0, 15
vadd.vv v0, v31, v31
vadd.vx v0, v31, zero
vsub.vv v8, v16, v24
vsub.vv v8, v16, v24, v0.t
vsub.vx v8, v16, a0
vsub.vx v8, v16, a0, v0.t
vsub.vv v31, v0, v0
vsub.vx v31, v0, t6
vsub.vv v0, v31, v31
vsub.vx v0, v31, zero
vrsub.vx v8, v16, a0
vrsub.vx v8, v16, a0, v0.t
vrsub.vi v8, v16, -16
vrsub.vi v8, v16, -16, v0.t
vrsub.vi v8, v16, -1
vrsub.vi v8, v16, -1, v0.t
vrsub.vi v8, v16, 0
vrsub.vi v8, v16, 0, v0.t
vrsub.vi v8, v16, 15
vrsub.vi v8, v16, 15, v0.t
vrsub.vx v31, v0, t6
vrsub.vi v31, v0, -16
vrsub.vi v31, v0, -1
vrsub.vi v31, v0, 0
vrsub.vi v31, v0, 15
vrsub.vx v0, v31, zero
vminu.vv v8, v16, v24
vminu.vv v8, v16, v24, v0.t
vminu.vx v8, v16, a0
vminu.vx v8, v16, a0, v0.t
vminu.vv v31, v0, v0
vminu.vx v31, v0, t6
vminu.vv v0, v31, v31
vminu.vx v0, v31, zero
vmin.vv v8, v16, v24
vmin.vv v8, v16, v24, v0.t
vmin.vx v8, v16, a0
vmin.vx v8, v16, a0, v0.t
vmin.vv v31, v0, v0
vmin.vx v31, v0, t6
vmin.vv v0, v31, v31
vmin.vx v0, v31, zero
vmaxu.vv v8, v16, v24
vmaxu.vv v8, v16, v24, v0.t
vmaxu.vx v8, v16, a0
vmaxu.vx v8, v16, a0, v0.t
vmaxu.vv v31, v0, v0
vmaxu.vx v31, v0, t6
vmaxu.vv v0, v31, v31
vmaxu.vx v0, v31, zero
vmax.vv v8, v16, v24
vmax.vv v8, v16, v24, v0.t
vmax.vx v8, v16, a0
vmax.vx v8, v16, a0, v0.t
vmax.vv v31, v0, v0
vmax.vx v31, v0, t6
vmax.vv v0, v31, v31
vmax.vx v0, v31, zero
vand.vv v8, v16, v24
vand.vv v8, v16, v24, v0.t
vand.vx v8, v16, a0
vand.vx v8, v16, a0, v0.t
vand.vi v8, v16, -16
vand.vi v8, v16, -16, v0.t
vand.vi v8, v16, -1
vand.vi v8, v16, -1, v0.t
vand.vi v8, v16, 0
vand.vi v8, v16, 0, v0.t
vand.vi v8, v16, 15
vand.vi v8, v16, 15, v0.t
vand.vv v31, v0, v0
vand.vx v31, v0, t6
vand.vi v31, v0, -16
vand.vi v31, v0, -1
vand.vi v31, v0, 0
vand.vi v31, v0, 15
vand.vv v0, v31, v31
vand.vx v0, v31, zero
vor.vv v8, v16, v24
vor.vv v8, v16, v24, v0.t
vor.vx v8, v16, a0
vor.vx v8, v16, a0, v0.t
vor.vi v8, v16, -16
vor.vi v8, v16, -16, v0.t
vor.vi v8, v16, -1
vor.vi v8, v16, -1, v0.t
vor.vi v8, v16, 0
vor.vi v8, v16, 0, v0.t
vor.vi v8, v16, 15
vor.vi v8, v16, 15, v0.t
vor.vv v31, v0, v0
vor.vx v31, v0, t6
vor.vi v31, v0, -16
vor.vi v31, v0, -1
vor.vi v31, v0, 0
vor.vi v31, v0, 15
vor.vv v0, v31, v31
vor.vx v0, v31, zero
vxor.vv v8, v16, v24
vxor.vv v8, v16, v24, v0.t
vxor.vx v8, v16, a0
vxor.vx v8, v16, a0, v0.t
vxor.vi v8, v16, -16
vxor.vi v8, v16, -16, v0.t
vxor.vi v8, v16, -1
vxor.vi v8, v16, -1, v0.t
vxor.vi v8, v16, 0
vxor.vi v8, v16, 0, v0.t
vxor.vi v8, v16, 15
vxor.vi v8, v16, 15, v0.t
vxor.vv v31, v0, v0
vxor.vx v31, v0, t6
vxor.vi v31, v0, -16
vxor.vi v31, v0, -1
vxor.vi v31, v0, 0
vxor.vi v31, v0, 15
vxor.vv v0, v31, v31
vxor.vx v0, v31, zero
vsll.vv v8, v16, v24
vsll.vv v8, v16, v24, v0.t
vsll.vx v8, v16, a0
vsll.vx v8, v16, a0, v0.t
vsll.vi v8, v16, 0
vsll.vi v8, v16, 0, v0.t
vsll.vi v8, v16, 15
vsll.vi v8, v16, 15, v0.t
vsll.vi v8, v16, 31
vsll.vi v8, v16, 31, v0.t
vsll.vv v31, v0, v0
vsll.vx v31, v0, t6
vsll.vi v31, v0, 0
vsll.vi v31, v0, 15
vsll.vi v31, v0, 31
vsll.vv v0, v31, v31
vsll.vx v0, v31, zero
vsrl.vv v8, v16, v24
vsrl.vv v8, v16, v24, v0.t
vsrl.vx v8, v16, a0
vsrl.vx v8, v16, a0, v0.t
vsrl.vi v8, v16, 0
vsrl.vi v8, v16, 0, v0.t
vsrl.vi v8, v16, 15
vsrl.vi v8, v16, 15, v0.t
vsrl.vi v8, v16, 31
vsrl.vi v8, v16, 31, v0.t
vsrl.vv v31, v0, v0
vsrl.vx v31, v0, t6
vsrl.vi v31, v0, 0
vsrl.vi v31, v0, 15
vsrl.vi v31, v0, 31
vsrl.vv v0, v31, v31
vsrl.vx v0, v31, zero
vsra.vv v8, v16, v24
vsra.vv v8, v16, v24, v0.t
vsra.vx v8, v16, a0
vsra.vx v8, v16, a0, v0.t
vsra.vi v8, v16, 0
vsra.vi v8, v16, 0, v0.t
vsra.vi v8, v16, 15
vsra.vi v8, v16, 15, v0.t
vsra.vi v8, v16, 31
vsra.vi v8, v16, 31, v0.t
vsra.vv v31, v0, v0
vsra.vx v31, v0, t6
vsra.vi v31, v0, 0
vsra.vi v31, v0, 15
vsra.vi v31, v0, 31
vsra.vv v0, v31, v31
vsra.vx v0, v31, zero
vssrl.vv v8, v16, v24
vssrl.vv v8, v16, v24, v0.t
vssrl.vx v8, v16, a0
vssrl.vx v8, v16, a0, v0.t
vssrl.vi v8, v16, 0
vssrl.vi v8, v16, 0, v0.t
vssrl.vi v8, v16, 15
vssrl.vi v8, v16, 15, v0.t
vssrl.vi v8, v16, 31
vssrl.vi v8, v16, 31, v0.t
vssrl.vv v31, v0, v0
vssrl.vx v31, v0, t6
vssrl.vi v31, v0, 0
vssrl.vi v31, v0, 15
vssrl.vi v31, v0, 31
vssrl.vv v0, v31, v31
vssrl.vx v0, v31, zero
vnsrl.wv v8, v16, v24
vnsrl.wv v8, v16, v24, v0.t
vnsrl.wx v8, v16, a0
vnsrl.wx v8, v16, a0, v0.t
vnsrl.wi v8, v16, 0
vnsrl.wi v8, v16, 0, v0.t
vnsrl.wi v8, v16, 15
vnsrl.wi v8, v16, 15, v0.t
vnsrl.wi v8, v16, 31
vnsrl.wi v8, v16, 31, v0.t
vnsrl.wv v31, v0, v0
vnsrl.wx v31, v0, t6
vnsrl.wi v31, v0, 0
vnsrl.wi v31, v0, 15
vnsrl.wi v31, v0, 31
vnsrl.wv v0, v31, v31
vnsrl.wx v0, v31, zero
vnsra.wv v8, v16, v24
vnsra.wv v8, v16, v24, v0.t
vnsra.wx v8, v16, a0
vnsra.wx v8, v16, a0, v0.t
vnsra.wi v8, v16, 0
vnsra.wi v8, v16, 0, v0.t
vnsra.wi v8, v16, 15
vnsra.wi v8, v16, 15, v0.t
vnsra.wi v8, v16, 31
vnsra.wi v8, v16, 31, v0.t
vnsra.wv v31, v0, v0
vnsra.wx v31, v0, t6
vnsra.wi v31, v0, 0
vnsra.wi v31, v0, 15
vnsra.wi v31, v0, 31
vnsra.wv v0, v31, v31
vnsra.wx v0, v31, zero
vnclipu.wv v8, v16, v24
vnclipu.wv v8, v16, v24, v0.t
vnclipu.wx v8, v16, a0
vnclipu.wx v8, v16, a0, v0.t
vnclipu.wi v8, v16, 0
vnclipu.wi v8, v16, 0, v0.t
vnclipu.wi v8, v16, 15
vnclipu.wi v8, v16, 15, v0.t
vnclipu.wi v8, v16, 31
vnclipu.wi v8, v16, 31, v0.t
vnclipu.wv v31, v0, v0
vnclipu.wx v31, v0, t6
vnclipu.wi v31, v0, 0
vnclipu.wi v31, v0, 15
vnclipu.wi v31, v0, 31
vnclipu.wv v0, v31, v31
vnclipu.wx v0, v31, zero
vdivu.vv v8, v16, v24
vdivu.vv v8, v16, v24, v0.t
vdivu.vx v8, v16, a0
vdivu.vx v8, v16, a0, v0.t
vdivu.vv v31, v0, v0
vdivu.vx v31, v0, t6
vdivu.vv v0, v31, v31
vdivu.vx v0, v31, zero
vdiv.vv v8, v16, v24
vdiv.vv v8, v16, v24, v0.t
vdiv.vx v8, v16, a0
vdiv.vx v8, v16, a0, v0.t
vdiv.vv v31, v0, v0
vdiv.vx v31, v0, t6
vdiv.vv v0, v31, v31
vdiv.vx v0, v31, zero
vremu.vv v8, v16, v24
vremu.vv v8, v16, v24, v0.t
vremu.vx v8, v16, a0
vremu.vx v8, v16, a0, v0.t
vremu.vv v31, v0, v0
vremu.vx v31, v0, t6
vremu.vv v0, v31, v31
vremu.vx v0, v31, zero
vrem.vv v8, v16, v24
vrem.vv v8, v16, v24, v0.t
vrem.vx v8, v16, a0
vrem.vx v8, v16, a0, v0.t
vrem.vv v31, v0, v0
vrem.vx v31, v0, t6
vrem.vv v0, v31, v31
vrem.vx v0, v31, zero
vmulhu.vv v8, v16, v24
vmulhu.vv v8, v16, v24, v0.t
vmulhu.vx v8, v16, a0
vmulhu.vx v8, v16, a0, v0.t
vmulhu.vv v31, v0, v0
vmulhu.vx v31, v0, t6
vmulhu.vv v0, v31, v31
vmulhu.vx v0, v31, zero
vmul.vv v8, v16, v24
vmul.vv v8, v16, v24, v0.t
vmul.vx v8, v16, a0
vmul.vx v8, v16, a0, v0.t
vmul.vv v31, v0, v0
vmul.vx v31, v0, t6
vmul.vv v0, v31, v31
vmul.vx v0, v31, zero
vmulhsu.vv v8, v16, v24
vmulhsu.vv v8, v16, v24, v0.t
vmulhsu.vx v8, v16, a0
vmulhsu.vx v8, v16, a0, v0.t
vmulhsu.vv v31, v0, v0
vmulhsu.vx v31, v0, t6
vmulhsu.vv v0, v31, v31
vmulhsu.vx v0, v31, zero
vmulh.vv v8, v16, v24
vmulh.vv v8, v16, v24, v0.t
vmulh.vx v8, v16, a0
vmulh.vx v8, v16, a0, v0.t
vmulh.vv v31, v0, v0
vmulh.vx v31, v0, t6
vmulh.vv v0, v31, v31
vmulh.vx v0, v31, zero
vmadd.vv v8, v24, v16
vmadd.vv v8, v24, v16, v0.t
vmadd.vx v8, a0, v16
vmadd.vx v8, a0, v16, v0.t
vmadd.vv v31, v0, v0
vmadd.vx v31, t6, v0
vmadd.vv v0, v31, v31
vmadd.vx v0, zero, v31
vnmsub.vv v8, v24, v16
vnmsub.vv v8, v24, v16, v0.t
vnmsub.vx v8, a0, v16
vnmsub.vx v8, a0, v16, v0.t
vnmsub.vv v31, v0, v0
vnmsub.vx v31, t6, v0
vnmsub.vv v0, v31, v31
vnmsub.vx v0, zero, v31
vmacc.vv v8, v24, v16
vmacc.vv v8, v24, v16, v0.t
vmacc.vx v8, a0, v16
vmacc.vx v8, a0, v16, v0.t
vmacc.vv v31, v0, v0
vmacc.vx v31, t6, v0
vmacc.vv v0, v31, v31
vmacc.vx v0, zero, v31
vnmsac.vv v8, v24, v16
vnmsac.vv v8, v24, v16, v0.t
vnmsac.vx v8, a0, v16
vnmsac.vx v8, a0, v16, v0.t
vnmsac.vv v31, v0, v0
vnmsac.vx v31, t6, v0
vnmsac.vv v0, v31, v31
vnmsac.vx v0, zero, v31
vwaddu.vv v8, v16, v24
vwaddu.vv v8, v16, v24, v0.t
vwaddu.vx v8, v16, a0
vwaddu.vx v8, v16, a0, v0.t
vwaddu.vv v31, v0, v0
vwaddu.vx v31, v0, t6
vwaddu.vv v0, v31, v31
vwaddu.vx v0, v31, zero
vwadd.vv v8, v16, v24
vwadd.vv v8, v16, v24, v0.t
vwadd.vx v8, v16, a0
vwadd.vx v8, v16, a0, v0.t
vwadd.vv v31, v0, v0
vwadd.vx v31, v0, t6
vwadd.vv v0, v31, v31
vwadd.vx v0, v31, zero
vwsubu.vv v8, v16, v24
vwsubu.vv v8, v16, v24, v0.t
vwsubu.vx v8, v16, a0
vwsubu.vx v8, v16, a0, v0.t
vwsubu.vv v31, v0, v0
vwsubu.vx v31, v0, t6
vwsubu.vv v0, v31, v31
vwsubu.vx v0, v31, zero
vwsub.vv v8, v16, v24
vwsub.vv v8, v16, v24, v0.t
vwsub.vx v8, v16, a0
vwsub.vx v8, v16, a0, v0.t
vwsub.vv v31, v0, v0
vwsub.vx v31, v0, t6
vwsub.vv v0, v31, v31
vwsub.vx v0, v31, zero
vwaddu.wv v8, v16, v24
vwaddu.wv v8, v16, v24, v0.t
vwaddu.wx v8, v16, a0
vwaddu.wx v8, v16, a0, v0.t
vwaddu.wv v31, v0, v0
vwaddu.wx v31, v0, t6
vwaddu.wv v0, v31, v31
vwaddu.wx v0, v31, zero
vwadd.wv v8, v16, v24
vwadd.wv v8, v16, v24, v0.t
vwadd.wx v8, v16, a0
vwadd.wx v8, v16, a0, v0.t
vwadd.wv v31, v0, v0
vwadd.wx v31, v0, t6
vwadd.wv v0, v31, v31
vwadd.wx v0, v31, zero
vwsubu.wv v8, v16, v24
vwsubu.wv v8, v16, v24, v0.t
vwsubu.wx v8, v16, a0
vwsubu.wx v8, v16, a0, v0.t
vwsubu.wv v31, v0, v0
vwsubu.wx v31, v0, t6
vwsubu.wv v0, v31, v31
vwsubu.wx v0, v31, zero
vwsub.wv v8, v16, v24
vwsub.wv v8, v16, v24, v0.t
vwsub.wx v8, v16, a0
vwsub.wx v8, v16, a0, v0.t
vwsub.wv v31, v0, v0
vwsub.wx v31, v0, t6
vwsub.wv v0, v31, v31
vwsub.wx v0, v31, zero
vwmulu.vv v8, v16, v24
vwmulu.vv v8, v16, v24, v0.t
vwmulu.vx v8, v16, a0
vwmulu.vx v8, v16, a0, v0.t
vwmulu.vv v31, v0, v0
vwmulu.vx v31, v0, t6
vwmulu.vv v0, v31, v31
vwmulu.vx v0, v31, zero
vwmulsu.vv v8, v16, v24
vwmulsu.vv v8, v16, v24, v0.t
vwmulsu.vx v8, v16, a0
vwmulsu.vx v8, v16, a0, v0.t
vwmulsu.vv v31, v0, v0
vwmulsu.vx v31, v0, t6
vwmulsu.vv v0, v31, v31
vwmulsu.vx v0, v31, zero
vwmul.vv v8, v16, v24
vwmul.vv v8, v16, v24, v0.t
vwmul.vx v8, v16, a0
vwmul.vx v8, v16, a0, v0.t
vwmul.vv v31, v0, v0
vwmul.vx v31, v0, t6
vwmul.vv v0, v31, v31
vwmul.vx v0, v31, zero
vwmaccu.vv v8, v24, v16
vwmaccu.vv v8, v24, v16, v0.t
vwmaccu.vx v8, a0, v16
vwmaccu.vx v8, a0, v16, v0.t
vwmaccu.vv v31, v0, v0
vwmaccu.vx v31, t6, v0
vwmaccu.vv v0, v31, v31
vwmaccu.vx v0, zero, v31
vwmacc.vv v8, v24, v16
vwmacc.vv v8, v24, v16, v0.t
vwmacc.vx v8, a0, v16
vwmacc.vx v8, a0, v16, v0.t
vwmacc.vv v31, v0, v0
vwmacc.vx v31, t6, v0
vwmacc.vv v0, v31, v31
vwmacc.vx v0, zero, v31
vwmaccus.vx v8, a0, v16
vwmaccus.vx v8, a0, v16, v0.t
vwmaccus.vx v31, t6, v0
vwmaccus.vx v0, zero, v31
vwmaccsu.vv v8, v24, v16
vwmaccsu.vv v8, v24, v16, v0.t
vwmaccsu.vx v8, a0, v16
vwmaccsu.vx v8, a0, v16, v0.t
vwmaccsu.vv v31, v0, v0
vwmaccsu.vx v31, t6, v0
vwmaccsu.vv v0, v31, v31
vwmaccsu.vx v0, zero, v31
vmseq.vv v8, v16, v24
vmseq.vv v8, v16, v24, v0.t
vmseq.vx v8, v16, a0
vmseq.vx v8, v16, a0, v0.t
vmseq.vi v8, v16, -16
vmseq.vi v8, v16, -16, v0.t
vmseq.vi v8, v16, -1
vmseq.vi v8, v16, -1, v0.t
vmseq.vi v8, v16, 0
vmseq.vi v8, v16, 0, v0.t
vmseq.vi v8, v16, 15
vmseq.vi v8, v16, 15, v0.t
vmseq.vv v31, v0, v0
vmseq.vx v31, v0, t6
vmseq.vi v31, v0, -16
vmseq.vi v31, v0, -1
vmseq.vi v31, v0, 0
vmseq.vi v31, v0, 15
vmseq.vv v0, v31, v31
vmseq.vx v0, v31, zero
vmsne.vv v8, v16, v24
vmsne.vv v8, v16, v24, v0.t
vmsne.vx v8, v16, a0
vmsne.vx v8, v16, a0, v0.t
vmsne.vi v8, v16, -16
vmsne.vi v8, v16, -16, v0.t
vmsne.vi v8, v16, -1
vmsne.vi v8, v16, -1, v0.t
vmsne.vi v8, v16, 0
vmsne.vi v8, v16, 0, v0.t
vmsne.vi v8, v16, 15
vmsne.vi v8, v16, 15, v0.t
vmsne.vv v31, v0, v0
vmsne.vx v31, v0, t6
vmsne.vi v31, v0, -16
vmsne.vi v31, v0, -1
vmsne.vi v31, v0, 0
vmsne.vi v31, v0, 15
vmsne.vv v0, v31, v31
vmsne.vx v0, v31, zero
vmsltu.vv v8, v16, v24
vmsltu.vv v8, v16, v24, v0.t
vmsltu.vx v8, v16, a0
vmsltu.vx v8, v16, a0, v0.t
vmsltu.vv v31, v0, v0
vmsltu.vx v31, v0, t6
vmsltu.vv v0, v31, v31
vmsltu.vx v0, v31, zero
vmslt.vv v8, v16, v24
vmslt.vv v8, v16, v24, v0.t
vmslt.vx v8, v16, a0
vmslt.vx v8, v16, a0, v0.t
vmslt.vv v31, v0, v0
vmslt.vx v31, v0, t6
vmslt.vv v0, v31, v31
vmslt.vx v0, v31, zero
vmsleu.vv v8, v16, v24
vmsleu.vv v8, v16, v24, v0.t
vmsleu.vx v8, v16, a0
vmsleu.vx v8, v16, a0, v0.t
vmsleu.vi v8, v16, -16
vmsleu.vi v8, v16, -16, v0.t
vmsleu.vi v8, v16, -1
vmsleu.vi v8, v16, -1, v0.t
vmsleu.vi v8, v16, 0
vmsleu.vi v8, v16, 0, v0.t
vmsleu.vi v8, v16, 15
vmsleu.vi v8, v16, 15, v0.t
vmsleu.vv v31, v0, v0
vmsleu.vx v31, v0, t6
vmsleu.vi v31, v0, -16
vmsleu.vi v31, v0, -1
vmsleu.vi v31, v0, 0
vmsleu.vi v31, v0, 15
vmsleu.vv v0, v31, v31
vmsleu.vx v0, v31, zero
vmsle.vv v8, v16, v24
vmsle.vv v8, v16, v24, v0.t
vmsle.vx v8, v16, a0
vmsle.vx v8, v16, a0, v0.t
vmsle.vi v8, v16, -16
vmsle.vi v8, v16, -16, v0.t
vmsle.vi v8, v16, -1
vmsle.vi v8, v16, -1, v0.t
vmsle.vi v8, v16, 0
vmsle.vi v8, v16, 0, v0.t
vmsle.vi v8, v16, 15
vmsle.vi v8, v16, 15, v0.t
vmsle.vv v31, v0, v0
vmsle.vx v31, v0, t6
vmsle.vi v31, v0, -16
vmsle.vi v31, v0, -1
vmsle.vi v31, v0, 0
vmsle.vi v31, v0, 15
vmsle.vv v0, v31, v31
vmsle.vx v0, v31, zero
vmsgtu.vx v8, v16, a0
vmsgtu.vx v8, v16, a0, v0.t
vmsgtu.vi v8, v16, -16
vmsgtu.vi v8, v16, -16, v0.t
vmsgtu.vi v8, v16, -1
vmsgtu.vi v8, v16, -1, v0.t
vmsgtu.vi v8, v16, 0
vmsgtu.vi v8, v16, 0, v0.t
vmsgtu.vi v8, v16, 15
vmsgtu.vi v8, v16, 15, v0.t
vmsgtu.vx v31, v0, t6
vmsgtu.vi v31, v0, -16
vmsgtu.vi v31, v0, -1
vmsgtu.vi v31, v0, 0
vmsgtu.vi v31, v0, 15
vmsgtu.vx v0, v31, zero
vmsgt.vx v8, v16, a0
vmsgt.vx v8, v16, a0, v0.t
vmsgt.vi v8, v16, -16
vmsgt.vi v8, v16, -16, v0.t
vmsgt.vi v8, v16, -1
vmsgt.vi v8, v16, -1, v0.t
vmsgt.vi v8, v16, 0
vmsgt.vi v8, v16, 0, v0.t
vmsgt.vi v8, v16, 15
vmsgt.vi v8, v16, 15, v0.t
vmsgt.vx v31, v0, t6
vmsgt.vi v31, v0, -16
vmsgt.vi v31, v0, -1
vmsgt.vi v31, v0, 0
vmsgt.vi v31, v0, 15
vmsgt.vx v0, v31, zero
vmerge.vvm v8, v16, v24, v0
vmerge.vxm v8, v16, a0, v0
vmerge.vim v8, v16, -16, v0
vmerge.vim v8, v16, -1, v0
vmerge.vim v8, v16, 0, v0
vmerge.vim v8, v16, 15, v0
vmerge.vvm v31, v0, v0, v0
vmerge.vxm v31, v0, t6, v0
vmerge.vim v31, v0, -16, v0
vmerge.vim v31, v0, -1, v0
vmerge.vim v31, v0, 0, v0
vmerge.vim v31, v0, 15, v0
vmerge.vvm v1, v31, v31, v0
vmerge.vxm v1, v31, zero, v0
vfmerge.vfm v8, v16, fa0, v0
vfmerge.vfm v31, v0, ft11, v0
vfmerge.vfm v1, v31, ft0, v0
vmandn.mm v8, v16, v24
vmandn.mm v31, v0, v0
vmandn.mm v0, v31, v31
vmand.mm v8, v16, v24
vmand.mm v31, v0, v0
vmand.mm v0, v31, v31
vmor.mm v8, v16, v24
vmor.mm v31, v0, v0
vmor.mm v0, v31, v31
vmxor.mm v8, v16, v24
vmxor.mm v31, v0, v0
vmxor.mm v0, v31, v31
vmorn.mm v8, v16, v24
vmorn.mm v31, v0, v0
vmorn.mm v0, v31, v31
vmnand.mm v8, v16, v24
vmnand.mm v31, v0, v0
vmnand.mm v0, v31, v31
vmnor.mm v8, v16, v24
vmnor.mm v31, v0, v0
vmnor.mm v0, v31, v31
vmxnor.mm v8, v16, v24
vmxnor.mm v31, v0, v0
vmxnor.mm v0, v31, v31
vredsum.vs v8, v16, v24
vredsum.vs v8, v16, v24, v0.t
vredsum.vs v31, v0, v0
vredsum.vs v0, v31, v31
vredand.vs v8, v16, v24
vredand.vs v8, v16, v24, v0.t
vredand.vs v31, v0, v0
vredand.vs v0, v31, v31
vredor.vs v8, v16, v24
vredor.vs v8, v16, v24, v0.t
vredor.vs v31, v0, v0
vredor.vs v0, v31, v31
vredxor.vs v8, v16, v24
vredxor.vs v8, v16, v24, v0.t
vredxor.vs v31, v0, v0
vredxor.vs v0, v31, v31
vredminu.vs v8, v16, v24
vredminu.vs v8, v16, v24, v0.t
vredminu.vs v31, v0, v0
vredminu.vs v0, v31, v31
vredmin.vs v8, v16, v24
vredmin.vs v8, v16, v24, v0.t
vredmin.vs v31, v0, v0
vredmin.vs v0, v31, v31
vredmaxu.vs v8, v16, v24
vredmaxu.vs v8, v16, v24, v0.t
vredmaxu.vs v31, v0, v0
vredmaxu.vs v0, v31, v31
vredmax.vs v8, v16, v24
vredmax.vs v8, v16, v24, v0.t
vredmax.vs v31, v0, v0
vredmax.vs v0, v31, v31
vwredsumu.vs v8, v16, v24
vwredsumu.vs v8, v16, v24, v0.t
vwredsumu.vs v31, v0, v0
vwredsumu.vs v0, v31, v31
vwredsum.vs v8, v16, v24
vwredsum.vs v8, v16, v24, v0.t
vwredsum.vs v31, v0, v0
vwredsum.vs v0, v31, v31
vslideup.vx v8, v16, a0
vslideup.vx v8, v16, a0, v0.t
vslideup.vi v8, v16, 0
vslideup.vi v8, v16, 0, v0.t
vslideup.vi v8, v16, 15
vslideup.vi v8, v16, 15, v0.t
vslideup.vi v8, v16, 31
vslideup.vi v8, v16, 31, v0.t
vslideup.vx v31, v0, t6
vslideup.vi v31, v0, 0
vslideup.vi v31, v0, 15
vslideup.vi v31, v0, 31
vslideup.vx v0, v31, zero
vslidedown.vx v8, v16, a0
vslidedown.vx v8, v16, a0, v0.t
vslidedown.vi v8, v16, 0
vslidedown.vi v8, v16, 0, v0.t
vslidedown.vi v8, v16, 15
vslidedown.vi v8, v16, 15, v0.t
vslidedown.vi v8, v16, 31
vslidedown.vi v8, v16, 31, v0.t
vslidedown.vx v31, v0, t6
vslidedown.vi v31, v0, 0
vslidedown.vi v31, v0, 15
vslidedown.vi v31, v0, 31
vslidedown.vx v0, v31, zero
vslide1up.vx v8, v16, a0
vslide1up.vx v8, v16, a0, v0.t
vslide1up.vx v31, v0, t6
vslide1up.vx v0, v31, zero
vslide1down.vx v8, v16, a0
vslide1down.vx v8, v16, a0, v0.t
vslide1down.vx v31, v0, t6
vslide1down.vx v0, v31, zero
vfslide1up.vf v8, v16, fa0
vfslide1up.vf v8, v16, fa0, v0.t
vfslide1up.vf v31, v0, ft11
vfslide1up.vf v0, v31, ft0
vfslide1down.vf v8, v16, fa0
vfslide1down.vf v8, v16, fa0, v0.t
vfslide1down.vf v31, v0, ft11
vfslide1down.vf v0, v31, ft0
vrgather.vv v8, v16, v24
vrgather.vv v8, v16, v24, v0.t
vrgather.vx v8, v16, a0
vrgather.vx v8, v16, a0, v0.t
vrgather.vi v8, v16, 0
vrgather.vi v8, v16, 0, v0.t
vrgather.vi v8, v16, 15
vrgather.vi v8, v16, 15, v0.t
vrgather.vi v8, v16, 31
vrgather.vi v8, v16, 31, v0.t
vrgather.vv v31, v0, v0
vrgather.vx v31, v0, t6
vrgather.vi v31, v0, 0
vrgather.vi v31, v0, 15
vrgather.vi v31, v0, 31
vrgather.vv v0, v31, v31
vrgather.vx v0, v31, zero
vrgatherei16.vv v8, v16, v24
vrgatherei16.vv v8, v16, v24, v0.t
vrgatherei16.vv v31, v0, v0
vrgatherei16.vv v0, v31, v31
vcompress.vm v8, v16, v24
vcompress.vm v31, v0, v0
vcompress.vm v0, v31, v31
vfadd.vv v8, v16, v24
vfadd.vv v8, v16, v24, v0.t
vfadd.vf v8, v16, fa0
vfadd.vf v8, v16, fa0, v0.t
vfadd.vv v31, v0, v0
vfadd.vf v31, v0, ft11
vfadd.vv v0, v31, v31
vfadd.vf v0, v31, ft0
vfsub.vv v8, v16, v24
vfsub.vv v8, v16, v24, v0.t
vfsub.vf v8, v16, fa0
vfsub.vf v8, v16, fa0, v0.t
vfsub.vv v31, v0, v0
vfsub.vf v31, v0, ft11
vfsub.vv v0, v31, v31
vfsub.vf v0, v31, ft0
vfrsub.vf v8, v16, fa0
vfrsub.vf v8, v16, fa0, v0.t
vfrsub.vf v31, v0, ft11
vfrsub.vf v0, v31, ft0
vfmul.vv v8, v16, v24
vfmul.vv v8, v16, v24, v0.t
vfmul.vf v8, v16, fa0
vfmul.vf v8, v16, fa0, v0.t
vfmul.vv v31, v0, v0
vfmul.vf v31, v0, ft11
vfmul.vv v0, v31, v31
vfmul.vf v0, v31, ft0
vfdiv.vv v8, v16, v24
vfdiv.vv v8, v16, v24, v0.t
vfdiv.vf v8, v16, fa0
vfdiv.vf v8, v16, fa0, v0.t
vfdiv.vv v31, v0, v0
vfdiv.vf v31, v0, ft11
vfdiv.vv v0, v31, v31
vfdiv.vf v0, v31, ft0
vfrdiv.vf v8, v16, fa0
vfrdiv.vf v8, v16, fa0, v0.t
vfrdiv.vf v31, v0, ft11
vfrdiv.vf v0, v31, ft0
vfmin.vv v8, v16, v24
vfmin.vv v8, v16, v24, v0.t
vfmin.vf v8, v16, fa0
vfmin.vf v8, v16, fa0, v0.t
vfmin.vv v31, v0, v0
vfmin.vf v31, v0, ft11
vfmin.vv v0, v31, v31
vfmin.vf v0, v31, ft0
vfmax.vv v8, v16, v24
vfmax.vv v8, v16, v24, v0.t
vfmax.vf v8, v16, fa0
vfmax.vf v8, v16, fa0, v0.t
vfmax.vv v31, v0, v0
vfmax.vf v31, v0, ft11
vfmax.vv v0, v31, v31
vfmax.vf v0, v31, ft0
vfsgnj.vv v8, v16, v24
vfsgnj.vv v8, v16, v24, v0.t
vfsgnj.vf v8, v16, fa0
vfsgnj.vf v8, v16, fa0, v0.t
vfsgnj.vv v31, v0, v0
vfsgnj.vf v31, v0, ft11
vfsgnj.vv v0, v31, v31
vfsgnj.vf v0, v31, ft0
vfsgnjn.vv v8, v16, v24
vfsgnjn.vv v8, v16, v24, v0.t
vfsgnjn.vf v8, v16, fa0
vfsgnjn.vf v8, v16, fa0, v0.t
vfsgnjn.vv v31, v0, v0
vfsgnjn.vf v31, v0, ft11
vfsgnjn.vv v0, v31, v31
vfsgnjn.vf v0, v31, ft0
vfsgnjx.vv v8, v16, v24
vfsgnjx.vv v8, v16, v24, v0.t
vfsgnjx.vf v8, v16, fa0
vfsgnjx.vf v8, v16, fa0, v0.t
vfsgnjx.vv v31, v0, v0
vfsgnjx.vf v31, v0, ft11
vfsgnjx.vv v0, v31, v31
vfsgnjx.vf v0, v31, ft0
vfmacc.vv v8, v24, v16
vfmacc.vv v8, v24, v16, v0.t
vfmacc.vf v8, fa0, v16
vfmacc.vf v8, fa0, v16, v0.t
vfmacc.vv v31, v0, v0
vfmacc.vf v31, ft11, v0
vfmacc.vv v0, v31, v31
vfmacc.vf v0, ft0, v31
vfnmacc.vv v8, v24, v16
vfnmacc.vv v8, v24, v16, v0.t
vfnmacc.vf v8, fa0, v16
vfnmacc.vf v8, fa0, v16, v0.t
vfnmacc.vv v31, v0, v0
vfnmacc.vf v31, ft11, v0
vfnmacc.vv v0, v31, v31
vfnmacc.vf v0, ft0, v31
vfmsac.vv v8, v24, v16
vfmsac.vv v8, v24, v16, v0.t
vfmsac.vf v8, fa0, v16
vfmsac.vf v8, fa0, v16, v0.t
vfmsac.vv v31, v0, v0
vfmsac.vf v31, ft11, v0
vfmsac.vv v0, v31, v31
vfmsac.vf v0, ft0, v31
vfnmsac.vv v8, v24, v16
vfnmsac.vv v8, v24, v16, v0.t
vfnmsac.vf v8, fa0, v16
vfnmsac.vf v8, fa0, v16, v0.t
vfnmsac.vv v31, v0, v0
vfnmsac.vf v31, ft11, v0
vfnmsac.vv v0, v31, v31
vfnmsac.vf v0, ft0, v31
vfmadd.vv v8, v24, v16
vfmadd.vv v8, v24, v16, v0.t
vfmadd.vf v8, fa0, v16
vfmadd.vf v8, fa0, v16, v0.t
vfmadd.vv v31, v0, v0
vfmadd.vf v31, ft11, v0
vfmadd.vv v0, v31, v31
vfmadd.vf v0, ft0, v31
vfnmadd.vv v8, v24, v16
vfnmadd.vv v8, v24, v16, v0.t
vfnmadd.vf v8, fa0, v16
vfnmadd.vf v8, fa0, v16, v0.t
vfnmadd.vv v31, v0, v0
vfnmadd.vf v31, ft11, v0
vfnmadd.vv v0, v31, v31
vfnmadd.vf v0, ft0, v31
vfmsub.vv v8, v24, v16
vfmsub.vv v8, v24, v16, v0.t
vfmsub.vf v8, fa0, v16
vfmsub.vf v8, fa0, v16, v0.t
vfmsub.vv v31, v0, v0
vfmsub.vf v31, ft11, v0
vfmsub.vv v0, v31, v31
vfmsub.vf v0, ft0, v31
vfnmsub.vv v8, v24, v16
vfnmsub.vv v8, v24, v16, v0.t
vfnmsub.vf v8, fa0, v16
vfnmsub.vf v8, fa0, v16, v0.t
vfnmsub.vv v31, v0, v0
vfnmsub.vf v31, ft11, v0
vfnmsub.vv v0, v31, v31
vfnmsub.vf v0, ft0, v31
vfwadd.vv v8, v16, v24
vfwadd.vv v8, v16, v24, v0.t
vfwadd.vf v8, v16, fa0
vfwadd.vf v8, v16, fa0, v0.t
vfwadd.vv v31, v0, v0
vfwadd.vf v31, v0, ft11
vfwadd.vv v0, v31, v31
vfwadd.vf v0, v31, ft0
vfwsub.vv v8, v16, v24
vfwsub.vv v8, v16, v24, v0.t
vfwsub.vf v8, v16, fa0
vfwsub.vf v8, v16, fa0, v0.t
vfwsub.vv v31, v0, v0
vfwsub.vf v31, v0, ft11
vfwsub.vv v0, v31, v31
vfwsub.vf v0, v31, ft0
vfwadd.wv v8, v16, v24
vfwadd.wv v8, v16, v24, v0.t
vfwadd.wf v8, v16, fa0
vfwadd.wf v8, v16, fa0, v0.t
vfwadd.wv v31, v0, v0
vfwadd.wf v31, v0, ft11
vfwadd.wv v0, v31, v31
vfwadd.wf v0, v31, ft0
vfwsub.wv v8, v16, v24
vfwsub.wv v8, v16, v24, v0.t
vfwsub.wf v8, v16, fa0
vfwsub.wf v8, v16, fa0, v0.t
vfwsub.wv v31, v0, v0
vfwsub.wf v31, v0, ft11
vfwsub.wv v0, v31, v31
vfwsub.wf v0, v31, ft0
vfwmul.vv v8, v16, v24
vfwmul.vv v8, v16, v24, v0.t
vfwmul.vf v8, v16, fa0
vfwmul.vf v8, v16, fa0, v0.t
vfwmul.vv v31, v0, v0
vfwmul.vf v31, v0, ft11
vfwmul.vv v0, v31, v31
vfwmul.vf v0, v31, ft0
vfwmacc.vv v8, v24, v16
vfwmacc.vv v8, v24, v16, v0.t
vfwmacc.vf v8, fa0, v16
vfwmacc.vf v8, fa0, v16, v0.t
vfwmacc.vv v31, v0, v0
vfwmacc.vf v31, ft11, v0
vfwmacc.vv v0, v31, v31
vfwmacc.vf v0, ft0, v31
vfwnmacc.vv v8, v24, v16
vfwnmacc.vv v8, v24, v16, v0.t
vfwnmacc.vf v8, fa0, v16
vfwnmacc.vf v8, fa0, v16, v0.t
vfwnmacc.vv v31, v0, v0
vfwnmacc.vf v31, ft11, v0
vfwnmacc.vv v0, v31, v31
vfwnmacc.vf v0, ft0, v31
vfwmsac.vv v8, v24, v16
vfwmsac.vv v8, v24, v16, v0.t
vfwmsac.vf v8, fa0, v16
vfwmsac.vf v8, fa0, v16, v0.t
vfwmsac.vv v31, v0, v0
vfwmsac.vf v31, ft11, v0
vfwmsac.vv v0, v31, v31
vfwmsac.vf v0, ft0, v31
vfwnmsac.vv v8, v24, v16
vfwnmsac.vv v8, v24, v16, v0.t
vfwnmsac.vf v8, fa0, v16
vfwnmsac.vf v8, fa0, v16, v0.t
vfwnmsac.vv v31, v0, v0
vfwnmsac.vf v31, ft11, v0
vfwnmsac.vv v0, v31, v31
vfwnmsac.vf v0, ft0, v31
vmfeq.vv v8, v16, v24
vmfeq.vv v8, v16, v24, v0.t
vmfeq.vf v8, v16, fa0
vmfeq.vf v8, v16, fa0, v0.t
vmfeq.vv v31, v0, v0
vmfeq.vf v31, v0, ft11
vmfeq.vv v0, v31, v31
vmfeq.vf v0, v31, ft0
vmfne.vv v8, v16, v24
vmfne.vv v8, v16, v24, v0.t
vmfne.vf v8, v16, fa0
vmfne.vf v8, v16, fa0, v0.t
vmfne.vv v31, v0, v0
vmfne.vf v31, v0, ft11
vmfne.vv v0, v31, v31
vmfne.vf v0, v31, ft0
vmflt.vv v8, v16, v24
vmflt.vv v8, v16, v24, v0.t
vmflt.vf v8, v16, fa0
vmflt.vf v8, v16, fa0, v0.t
vmflt.vv v31, v0, v0
vmflt.vf v31, v0, ft11
vmflt.vv v0, v31, v31
vmflt.vf v0, v31, ft0
vmfle.vv v8, v16, v24
vmfle.vv v8, v16, v24, v0.t
vmfle.vf v8, v16, fa0
vmfle.vf v8, v16, fa0, v0.t
vmfle.vv v31, v0, v0
vmfle.vf v31, v0, ft11
vmfle.vv v0, v31, v31
vmfle.vf v0, v31, ft0
vmfgt.vf v8, v16, fa0
vmfgt.vf v8, v16, fa0, v0.t
vmfgt.vf v31, v0, ft11
vmfgt.vf v0, v31, ft0
vmfge.vf v8, v16, fa0
vmfge.vf v8, v16, fa0, v0.t
vmfge.vf v31, v0, ft11
vmfge.vf v0, v31, ft0
vfredusum.vs v8, v16, v24
vfredusum.vs v8, v16, v24, v0.t
vfredusum.vs v31, v0, v0
vfredusum.vs v0, v31, v31
vfredosum.vs v8, v16, v24
vfredosum.vs v8, v16, v24, v0.t
vfredosum.vs v31, v0, v0
vfredosum.vs v0, v31, v31
vfredmin.vs v8, v16, v24
vfredmin.vs v8, v16, v24, v0.t
vfredmin.vs v31, v0, v0
vfredmin.vs v0, v31, v31
vfredmax.vs v8, v16, v24
vfredmax.vs v8, v16, v24, v0.t
vfredmax.vs v31, v0, v0
vfredmax.vs v0, v31, v31
vfwredusum.vs v8, v16, v24
vfwredusum.vs v8, v16, v24, v0.t
vfwredusum.vs v31, v0, v0
vfwredusum.vs v0, v31, v31
vfwredosum.vs v8, v16, v24
vfwredosum.vs v8, v16, v24, v0.t
vfwredosum.vs v31, v0, v0
vfwredosum.vs v0, v31, v31
vmxor.mm v1, v1, v1
vmxnor.mm v1, v1, v1
vmand.mm v1, v1, v1
vmnand.mm v1, v1, v1
vmor.mm v1, v1, v1
# vector unary operations and moves
vzext.vf2 v8, v16
vzext.vf2 v8, v16, v0.t
vzext.vf2 v31, v0
vzext.vf2 v0, v24
vsext.vf2 v8, v16
vsext.vf2 v8, v16, v0.t
vsext.vf2 v31, v0
vsext.vf2 v0, v24
vzext.vf4 v8, v16
vzext.vf4 v8, v16, v0.t
vzext.vf4 v31, v0
vzext.vf4 v0, v24
vsext.vf4 v8, v16
vsext.vf4 v8, v16, v0.t
vsext.vf4 v31, v0
vsext.vf4 v0, v24
vzext.vf8 v8, v16
vzext.vf8 v8, v16, v0.t
vzext.vf8 v31, v0
vzext.vf8 v0, v24
vsext.vf8 v8, v16
vsext.vf8 v8, v16, v0.t
vsext.vf8 v31, v0
vsext.vf8 v0, v24
vfcvt.xu.f.v v8, v16
vfcvt.xu.f.v v8, v16, v0.t
vfcvt.xu.f.v v31, v0
vfcvt.xu.f.v v0, v24
vfcvt.x.f.v v8, v16
vfcvt.x.f.v v8, v16, v0.t
vfcvt.x.f.v v31, v0
vfcvt.x.f.v v0, v24
vfcvt.f.xu.v v8, v16
vfcvt.f.xu.v v8, v16, v0.t
vfcvt.f.xu.v v31, v0
vfcvt.f.xu.v v0, v24
vfcvt.f.x.v v8, v16
vfcvt.f.x.v v8, v16, v0.t
vfcvt.f.x.v v31, v0
vfcvt.f.x.v v0, v24
vfcvt.rtz.xu.f.v v8, v16
vfcvt.rtz.xu.f.v v8, v16, v0.t
vfcvt.rtz.xu.f.v v31, v0
vfcvt.rtz.xu.f.v v0, v24
vfcvt.rtz.x.f.v v8, v16
vfcvt.rtz.x.f.v v8, v16, v0.t
vfcvt.rtz.x.f.v v31, v0
vfcvt.rtz.x.f.v v0, v24
vfwcvt.xu.f.v v8, v16
vfwcvt.xu.f.v v8, v16, v0.t
vfwcvt.xu.f.v v31, v0
vfwcvt.xu.f.v v0, v24
vfwcvt.x.f.v v8, v16
vfwcvt.x.f.v v8, v16, v0.t
vfwcvt.x.f.v v31, v0
vfwcvt.x.f.v v0, v24
vfwcvt.f.xu.v v8, v16
vfwcvt.f.xu.v v8, v16, v0.t
vfwcvt.f.xu.v v31, v0
vfwcvt.f.xu.v v0, v24
vfwcvt.f.x.v v8, v16
vfwcvt.f.x.v v8, v16, v0.t
vfwcvt.f.x.v v31, v0
vfwcvt.f.x.v v0, v24
vfwcvt.f.f.v v8, v16
vfwcvt.f.f.v v8, v16, v0.t
vfwcvt.f.f.v v31, v0
vfwcvt.f.f.v v0, v24
vfwcvt.rtz.xu.f.v v8, v16
vfwcvt.rtz.xu.f.v v8, v16, v0.t
vfwcvt.rtz.xu.f.v v31, v0
vfwcvt.rtz.xu.f.v v0, v24
vfwcvt.rtz.x.f.v v8, v16
vfwcvt.rtz.x.f.v v8, v16, v0.t
vfwcvt.rtz.x.f.v v31, v0
vfwcvt.rtz.x.f.v v0, v24
vfncvt.xu.f.w v8, v16
vfncvt.xu.f.w v8, v16, v0.t
vfncvt.xu.f.w v31, v0
vfncvt.xu.f.w v0, v24
vfncvt.x.f.w v8, v16
vfncvt.x.f.w v8, v16, v0.t
vfncvt.x.f.w v31, v0
vfncvt.x.f.w v0, v24
vfncvt.f.xu.w v8, v16
vfncvt.f.xu.w v8, v16, v0.t
vfncvt.f.xu.w v31, v0
vfncvt.f.xu.w v0, v24
vfncvt.f.x.w v8, v16
vfncvt.f.x.w v8, v16, v0.t
vfncvt.f.x.w v31, v0
vfncvt.f.x.w v0, v24
vfncvt.f.f.w v8, v16
vfncvt.f.f.w v8, v16, v0.t
vfncvt.f.f.w v31, v0
vfncvt.f.f.w v0, v24
vfncvt.rod.f.f.w v8, v16
vfncvt.rod.f.f.w v8, v16, v0.t
vfncvt.rod.f.f.w v31, v0
vfncvt.rod.f.f.w v0, v24
vfncvt.rtz.xu.f.w v8, v16
vfncvt.rtz.xu.f.w v8, v16, v0.t
vfncvt.rtz.xu.f.w v31, v0
vfncvt.rtz.xu.f.w v0, v24
vfncvt.rtz.x.f.w v8, v16
vfncvt.rtz.x.f.w v8, v16, v0.t
vfncvt.rtz.x.f.w v31, v0
vfncvt.rtz.x.f.w v0, v24
vfsqrt.v v8, v16
vfsqrt.v v8, v16, v0.t
vfsqrt.v v31, v0
vfsqrt.v v0, v24
vfrsqrt7.v v8, v16
vfrsqrt7.v v8, v16, v0.t
vfrsqrt7.v v31, v0
vfrsqrt7.v v0, v24
vfrec7.v v8, v16
vfrec7.v v8, v16, v0.t
vfrec7.v v31, v0
vfrec7.v v0, v24
vfclass.v v8, v16
vfclass.v v8, v16, v0.t
vfclass.v v31, v0
vfclass.v v0, v24
vmsbf.m v8, v16
vmsbf.m v8, v16, v0.t
vmsbf.m v31, v0
vmsbf.m v0, v24
vmsof.m v8, v16
vmsof.m v8, v16, v0.t
vmsof.m v31, v0
vmsof.m v0, v24
vmsif.m v8, v16
vmsif.m v8, v16, v0.t
vmsif.m v31, v0
vmsif.m v0, v24
viota.m v8, v16
viota.m v8, v16, v0.t
viota.m v31, v0
viota.m v0, v24
vid.v v8
vid.v v8, v0.t
vid.v v31
vid.v v0
vmv.v.v v8, v16
vmv.v.v v8, v31
vmv.v.x v8, a0
vmv.v.x v8, zero
vmv.v.x v8, t6
vmv.v.i v8, -16
vmv.v.i v8, 0
vmv.v.i v8, 15
vfmv.v.f v8, fa0
vfmv.v.f v8, ft11
vmv.v.v v0, v16
vmv.v.v v0, v31
vmv.v.x v0, a0
vmv.v.x v0, zero
vmv.v.x v0, t6
vmv.v.i v0, -16
vmv.v.i v0, 0
vmv.v.i v0, 15
vfmv.v.f v0, fa0
vfmv.v.f v0, ft11
vmv.v.v v31, v16
vmv.v.v v31, v31
vmv.v.x v31, a0
vmv.v.x v31, zero
vmv.v.x v31, t6
vmv.v.i v31, -16
vmv.v.i v31, 0
vmv.v.i v31, 15
vfmv.v.f v31, fa0
vfmv.v.f v31, ft11
vmv1r.v v8, v16
vmv1r.v v0, v31
vmv1r.v v31, v0
vmv2r.v v8, v16
vmv2r.v v0, v30
vmv2r.v v30, v0
vmv4r.v v8, v16
vmv4r.v v0, v28
vmv4r.v v28, v0
vmv8r.v v8, v16
vmv8r.v v0, v24
vmv8r.v v24, v0
vmv.x.s a0, v8
vmv.s.x v8, a0
vfmv.f.s fa0, v8
vfmv.s.f v8, fa0
vmv.x.s t6, v31
vmv.s.x v31, t6
vfmv.f.s ft11, v31
vfmv.s.f v31, ft11
vmv.x.s zero, v0
vmv.s.x v0, zero
vfmv.f.s ft0, v0
vfmv.s.f v0, ft0
vcpop.m a0, v8
vcpop.m a0, v8, v0.t
vcpop.m t6, v31
vcpop.m zero, v0
vfirst.m a0, v8
vfirst.m a0, v8, v0.t
vfirst.m t6, v31
vfirst.m zero, v0
# alias corner cases
slt a0, zero, zero
sub a0, zero, zero
sltu a0, zero, zero
bge zero, zero, 8
blt zero, zero, 8
beq zero, zero, 8
jalr ra, 4(a0)
jalr ra, 0(ra)
csrrs zero, vl, zero
csrrs zero, fcsr, zero
csrrw zero, fcsr, zero
fence w, 0
fence 0, 0
vrsub.vx v8, v16, zero, v0.t
vxor.vi v8, v16, -1, v0.t
vfsgnjn.vv v8, v16, v16, v0.t
vfsgnjx.vv v8, v16, v16, v0.t
vfsgnj.vv v8, v16, v16
vnsrl.wx v8, v16, zero, v0.t
vwadd.vx v8, v16, zero, v0.t
vwaddu.vx v8, v16, zero, v0.t
vmxor.mm v1, v2, v2
vmxnor.mm v1, v2, v2
vmor.mm v1, v2, v2
vmsltu.vx v8, v16, zero
