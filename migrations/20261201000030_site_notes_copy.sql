-- Issue 16 copy: Amsterdam said "everything lands here first" while
-- Frankfurt says new cards arrive there first. Both are true once Amsterdam
-- speaks of the other lines' hardware and Frankfurt of GPUs. Only rows still
-- carrying the seed's wording change, so an operator's own note is kept.
update sites
set note_zh = '整个基础设施中密度最高的站点，其他产品线的新硬件都最先部署在这里',
    note_en = 'Our densest site; new hardware for our other lines lands here first'
where code = 'ams' and note_en = 'Our densest site; everything lands here first';

update sites
set note_zh = '最繁忙的 GPU 机房，新显卡最先运到这里'
where code = 'fra' and note_zh = '最繁忙的GPU机房，最先收到新显卡';
