"""Văn bản của trang web (vi): trang và dịch vụ."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- khung trang -----------------------------------------------------------------
    "web.title": "Trình tạo ID Snowflake: ID duy nhất từ nhiều máy, giải thích từng bit",
    "web.description": (
        "Tạo ID Snowflake của Twitter từ dấu thời gian, mã trung tâm dữ liệu, mã máy và số thứ"
        " tự, xem 64 bit của nó được lấp đầy ra sao và công thức được tính từng bước, hoặc giải"
        " mã một ID có sẵn."
    ),
    "web.skip": "Chuyển đến công cụ",
    "web.nav_label": "Công cụ",
    "web.nav.compose": "Tạo ID",
    "web.nav.decode": "Giải mã",
    "web.lang_label": "Ngôn ngữ",
    "web.lang.en": "English",
    "web.lang.vi": "Tiếng Việt",
    "web.footer": "API JSON của dịch vụ này được mô tả trong tài liệu OpenAPI 3.1:",
    "web.not_found": "Không có trang nào ở địa chỉ này.",
    "web.back_home": "Quay lại trình tạo ID",
    # --- biểu mẫu tạo ID -------------------------------------------------------------
    "web.compose.heading": "Tạo ID Snowflake",
    "web.compose.intro": (
        "Nhập bốn trường bên dưới. ID và 64 bit của nó được cập nhật ngay khi bạn gõ;"
        " nếu trình duyệt tắt JavaScript, hãy bấm Tạo ID."
    ),
    "web.label.timestamp": "Dấu thời gian (mili giây Unix)",
    "web.hint.timestamp": "Từ 1288834974657 đến 3487858230208. Để trống để dùng thời gian hiện tại.",
    "web.label.datacenter": "Mã trung tâm dữ liệu",
    "web.hint.datacenter": "Từ 0 đến 31 (5 bit)",
    "web.label.machine": "Mã máy",
    "web.hint.machine": "Từ 0 đến 31 (5 bit)",
    "web.label.sequence": "Số thứ tự",
    "web.hint.sequence": "Từ 0 đến 4095 (12 bit). Để trống nghĩa là 0.",
    "web.button.now": "Bây giờ",
    "web.button.compose": "Tạo ID",
    "web.button.decode": "Giải mã",
    "web.button.copy": "Sao chép",
    "web.copied": "Đã sao chép",
    "web.errors_summary": "Có {count} trường chưa hợp lệ, vui lòng sửa các ô được đánh dấu.",
    "web.used_now": "Ô dấu thời gian để trống nên công cụ dùng thời gian hiện tại: {timestamp}.",
    # --- biểu mẫu giải mã ------------------------------------------------------------
    "web.decode.heading": "Giải mã ID Snowflake",
    "web.decode.intro": (
        "Dán một ID ở dạng thập phân hoặc thập lục phân (0x…), hoặc một liên kết hay lượt"
        " nhắc có chứa ID: tweet, tin nhắn, lượt nhắc hay emoji của Discord, bài đăng Mastodon"
        " hoặc Instagram. Bạn sẽ thấy thời gian và các trường bên trong: với ID của Twitter là"
        " mã trung tâm dữ liệu, mã máy và số thứ tự. Liên kết được đọc theo bố cục của chính"
        " nó; với số nhập trực tiếp, hãy chọn bố cục của Discord, Instagram, Sonyflake hay"
        " Mastodon. Nhiều ID, mỗi ID một dòng (tối đa 100), được hiển thị thành bảng."
    ),
    "web.label.id": "ID Snowflake",
    "web.hint.id": (
        "Một số nguyên, số thập lục phân sau 0x, hoặc một liên kết hay lượt nhắc"
        " (x.com/…/status/…, discord.com/channels/…, <@…>, instagram.com/p/…); mỗi dòng một"
        " mục. ID của Twitter và Sonyflake tối đa là 9223372036854775807, ID của Discord,"
        " Instagram và Mastodon tối đa là 18446744073709551615."
    ),
    # --- kết quả ---------------------------------------------------------------------
    "web.result.heading": "Kết quả",
    "web.result.decimal": "ID (thập phân)",
    "web.result.hex": "Thập lục phân",
    "web.result.utc": "Thời gian (UTC)",
    "web.result.local": "Thời gian (giờ địa phương)",
    "web.result.local_zone": "múi giờ của máy chủ {zone}",
    "web.result.fields": "Các trường",
    "web.result.worker": "Nút xử lý (trung tâm dữ liệu × 32 + máy)",
    "web.result.bits": "64 bit của ID",
    "web.result.bits_intro": "Bit có trọng số cao nhất đứng đầu; mỗi khối là một trường.",
    "web.block.width": "{width} bit",
    "web.block.width_one": "1 bit",
    "web.block.span": "bit {high}–{low}",
    "web.block.span_one": "bit {high}",
    "web.block.value": "giá trị {value}",
    "web.block.value_delta": "giá trị {value} (mili giây kể từ epoch)",
    "web.result.formula": "Tính theo công thức, từng bước",
    "web.result.open_decoder": "Mở trong trình giải mã",
    "web.result.open_generator": "Mở trong trình tạo ID",
    # --- giải thích ------------------------------------------------------------------
    "web.explain.heading": "ID Snowflake được tạo như thế nào",
    "web.explain.structure_h": "Cấu trúc",
    "web.explain.structure": (
        "ID Snowflake là một số nguyên 64 bit. Đọc từ bit có trọng số cao nhất xuống, ID gồm:"
        " một bit dấu luôn bằng 0 nên ID luôn là số dương; 41 bit thời gian, tính bằng mili"
        " giây kể từ epoch Twitter; 5 bit mã trung tâm dữ liệu; 5 bit mã máy; và 12 bit số thứ"
        " tự để phân biệt các ID mà một máy tạo ra trong cùng một mili giây. Vì thời gian nằm"
        " ở các bit cao nhất, ID tạo sau luôn là số lớn hơn."
    ),
    "web.explain.formula_h": "Công thức",
    "web.explain.formula": (
        "Gọi t là dấu thời gian tính bằng mili giây, c là mã trung tâm dữ liệu, m là mã máy và"
        " s là số thứ tự. Trước hết tính độ lệch d = t − 1288834974657, sau đó"
        " I = (d << 22) | (c << 17) | (m << 12) | s. Dịch trái 22 bit nghĩa là nhân với"
        " 2²² = 4.194.304. Các giá trị dịch suy ra từ độ rộng của từng trường: số thứ tự chiếm"
        " 12 bit, mã máy thêm 5 bit (17), mã trung tâm dữ liệu thêm 5 bit nữa (22). Các trường"
        " sau khi dịch không chồng lên nhau, nên phép OR cho cùng kết quả với phép cộng."
    ),
    "web.explain.limits_h": "Giới hạn",
    "web.explain.limit_epoch": (
        "Epoch cố định: thời gian được tính từ 01:42:54,657 UTC ngày 4 tháng 11 năm 2010"
        " (1288834974657 ms). Không thể mã hóa các thời điểm sớm hơn, và công cụ này không cho"
        " đổi epoch."
    ),
    "web.explain.limit_end": (
        "Năm 2080: 41 bit mili giây đủ dùng khoảng 69,7 năm. Dấu thời gian cuối cùng còn vừa"
        " là 3487858230208, tức 17:30:30,208 UTC ngày 10 tháng 7 năm 2080."
    ),
    "web.explain.limit_sequence": (
        "4.096 ID mỗi mili giây: trong một mili giây, một máy chỉ tạo được tối đa 4.096 ID khác"
        " nhau (số thứ tự từ 0 đến 4095); bộ tạo thực tế sẽ chờ sang mili giây kế tiếp."
    ),
    "web.explain.limit_identities": (
        "1.024 danh tính: 32 mã trung tâm dữ liệu × 32 mã máy. Hai máy cùng chạy với một cặp"
        " mã giống nhau có thể tạo ra ID trùng nhau."
    ),
    "web.explain.limit_order": (
        "Thứ tự giữa các máy: ID chỉ được sắp đúng theo thời gian khi đồng hồ của các máy khớp"
        " nhau. ID của cùng một máy luôn theo thứ tự; ID của hai máy có đồng hồ lệch nhau thì"
        " có thể không."
    ),
    "web.explain.stateless": (
        "Trang này không lưu trạng thái: nó tạo một ID từ bất kỳ giá trị nào bạn nhập. Dịch vụ"
        " phía sau còn cấp ID mới (POST /api/ids), mỗi tiến trình dưới một danh tính riêng"
        " được thuê."
    ),
    # --- dịch vụ ---------------------------------------------------------------------
    "web.error.not_found": "Không có đường dẫn {method} {path}",
    "web.error.method_not_allowed": "Không cho phép phương thức {method} trên {path}",
    "web.error.internal": "Lỗi máy chủ nội bộ",
    "web.error.unavailable": (
        "Hiện chưa thể cấp ID; vui lòng thử lại sau giây lát (nhật ký máy chủ ghi rõ nguyên nhân)"
    ),
    "web.error.auth_required": (
        "Điểm cuối này cần token: hãy gửi tiêu đề Authorization: Bearer <token>"
    ),
    "web.error.auth_invalid": "Token không được chấp nhận",
    "web.serve.started": (
        "snowid serve: tiến trình {pid} tại http://{host}:{port} giữ trung tâm dữ liệu"
        " {datacenter}, máy {machine} (thuê qua {lease}, mức trần {ceiling})"
    ),
    "web.serve.no_identity": (
        "snowid serve: tiến trình {pid} tại http://{host}:{port} chưa giữ danh tính nào (thuê"
        " qua {lease}): {reason}"
    ),
    "web.serve.draining": (
        "snowid serve: tiến trình {pid} nhận {signal}: từ giờ /readyz trả 503; máy chủ vẫn"
        " phục vụ thêm {seconds} giây rồi mới dừng"
    ),
    "web.serve.release_timeout": (
        "snowid serve: tiến trình {pid} không trả lại danh tính trong vòng {seconds} giây (kho"
        " thuê không phản hồi): danh tính vẫn bị giữ cho đến khi quyền cấp hết hạn"
    ),
    "web.serve.release_error": (
        "snowid serve: tiến trình {pid} chưa trả lại được danh tính ({error}): danh tính vẫn bị"
        " giữ cho đến khi quyền cấp hết hạn"
    ),
    "web.serve.bad_host": (
        "không phải tên máy chủ hợp lệ: tên gồm các nhãn dài 1 đến 63 ký tự, ngăn cách bằng"
        " dấu chấm"
    ),
    "web.auth.reread": "snowid serve: tiến trình {pid} đã đọc lại {path}: {count} token",
    "web.auth.unusable": (
        "snowid serve: tiến trình {pid}: {message}; mọi token đều bị từ chối cho đến khi"
        " tệp được sửa"
    ),
    # --- các phần còn lại của trang gốc (issue 10) -------------------------------------
    "web.decode.title": (
        "Giải mã ID Snowflake: thời gian và các trường của ID Twitter, Discord, Instagram và"
        " các hệ thống khác"
    ),
    "web.decode.description": (
        "Dán một hoặc tối đa 100 ID Snowflake (thập phân hoặc thập lục phân 0x) để xem mỗi ID"
        " được tạo lúc nào, mang mã trung tâm dữ liệu, mã máy và số thứ tự nào, đến từng bit;"
        " đọc được cả ID của Discord, Instagram, Sonyflake và Mastodon, với mọi cách đọc hợp lý"
        " đặt cạnh nhau."
    ),
    "web.about.what_h": "Bộ tạo ID Snowflake là gì?",
    "web.about.what_1": (
        "Bộ tạo ID Snowflake ghép dấu thời gian, danh tính của máy và một bộ đếm thành một số 64"
        " bit mà không máy nào khác tạo ra trùng. Twitter thiết kế định dạng này năm 2010 để"
        " nhiều máy chủ cùng lúc đánh số cho các tweet mới mà không phải hỏi nhau xem một số đã"
        " có ai dùng hay chưa."
    ),
    "web.about.what_2": (
        "Trình tạo trên trang này dựng một ID như vậy từ bốn giá trị bạn nhập và cho thấy mỗi"
        " giá trị nằm ở đâu trong 64 bit. Trình giải mã làm ngược lại: tách một ID có sẵn"
        " thành từng phần."
    ),
    "web.about.uses_h": "ID Snowflake được sử dụng ở đâu",
    "web.about.uses_1": (
        "Twitter tạo ra định dạng này để cấp cho tweet những ID không trùng nhau, xếp gần đúng"
        " theo thời gian, trên hàng nghìn máy cơ sở dữ liệu, mà không cần một bộ đếm trung tâm"
        " để máy chủ nào cũng phải hỏi đến. Về sau Discord và Instagram cũng xây dựng kiểu ID"
        " 64 bit tương tự cho tin nhắn và bài đăng của họ."
    ),
    "web.about.uses_2": (
        "Cùng ý tưởng ấy có mặt trong các cơ sở dữ liệu phân mảnh (sharding), trong mã đơn hàng"
        " của các cửa hàng trực tuyến và trong nhật ký sự kiện của ứng dụng phân tán: ở bất cứ"
        " đâu có nhiều máy tự cấp ID mà các ID vẫn cần xếp được theo thứ tự gần đúng thời điểm"
        " tạo."
    ),
    "web.about.history_h": "Lịch sử của ID Snowflake",
    "web.about.history_1": (
        "Twitter công bố Snowflake năm 2010. Trước đó tweet được đánh số bằng bộ đếm tự tăng của"
        " cơ sở dữ liệu, và khi Twitter lớn dần, bộ đếm ấy không thể dùng chung cho nhiều máy"
        " chủ cơ sở dữ liệu độc lập. Cái tên gợi đến câu nói không có hai bông tuyết nào giống"
        " hệt nhau: hai ID cũng phải như vậy."
    ),
    "web.about.history_2": (
        "Twitter công khai mã nguồn của dự án, và nhiều nền tảng lớn khác đã dùng lại thiết kế"
        " này, chỉnh chi tiết cho hợp với mình, để đáp ứng cùng một nhu cầu: nhiều máy cùng lúc"
        " tạo ra các ID duy nhất, sắp xếp được theo thời gian."
    ),
    "web.about.decode_more": (
        "ID Snowflake dùng để làm gì, lịch sử của nó và giải đáp các câu hỏi thường gặp có ở"
        " trang của trình tạo ID:"
    ),
    "web.about.decode_more_link": "Tìm hiểu về ID Snowflake",
    "web.faq.heading": "Các câu hỏi thường gặp",
    "web.faq.what_q": "ID Snowflake là gì?",
    "web.faq.what_a": (
        "Là một số 64 bit ghép từ dấu thời gian, danh tính của máy và số thứ tự, được thiết kế"
        " để nhiều máy tự tạo được ID không trùng nhau mà không cần phối hợp với nhau."
    ),
    "web.faq.formula_q": "Công thức ID Snowflake là gì?",
    "web.faq.formula_a": (
        "id = ((timestamp − epoch) << 22) | (datacenter << 17) | (machine << 12) | sequence,"
        " trong đó epoch là một mốc bắt đầu cố định (1288834974657 ms, ngày 4 tháng 11 năm"
        " 2010) và << là phép dịch bit sang trái."
    ),
    "web.faq.epoch_q": "Có thể đổi epoch trong bộ tạo này không?",
    "web.faq.epoch_a": (
        "Không. Công cụ này luôn tính thời gian từ epoch cố định của Twitter, 01:42:54,657 UTC"
        " ngày 4 tháng 11 năm 2010; không có ô nào để đặt một mốc bắt đầu khác."
    ),
    "web.faq.decode_q": "Công cụ này có giải mã được một ID Snowflake có sẵn không?",
    "web.faq.decode_a": (
        "Có. Dán ID vào trình giải mã để xem dấu thời gian, mã trung tâm dữ liệu, mã máy và số"
        " thứ tự, cùng bảng phân tích từng bit như ở trình tạo. Trình giải mã đọc được số thập"
        " phân lẫn thập lục phân (0x…), và tối đa 100 ID một lúc, mỗi ID một dòng. Chọn bố cục"
        " để đọc ID của Discord, Instagram, Sonyflake hay Mastodon."
    ),
    "web.faq.decode_link": "Mở trình giải mã",
    "web.faq.rate_q": "Một máy tạo được bao nhiêu ID Snowflake mỗi mili giây?",
    "web.faq.rate_a": (
        "Tối đa 4.096 ID, vì trường số thứ tự rộng 12 bit, chứa được các giá trị từ 0 đến 4095."
    ),
    "web.faq.end_q": "Bộ tạo này tạo được dấu thời gian hợp lệ đến năm nào?",
    "web.faq.end_a": (
        "Đến tháng 7 năm 2080. Trường dấu thời gian 41 bit chứa được khoảng 69,7 năm tính từ"
        " epoch năm 2010; mili giây cuối cùng còn vừa là 17:30:30,208 UTC ngày 10 tháng 7 năm"
        " 2080, sau đó giá trị bị tràn khỏi trường."
    ),
    "web.refs.heading": "Tài liệu tham khảo",
    "web.refs.twitter": "“Announcing Snowflake” (Giới thiệu Snowflake), blog Kỹ thuật của Twitter, 2010",
    "web.refs.wikipedia": "“Snowflake ID”, Wikipedia (tiếng Anh)",
    # --- gõ, sao chép và chia sẻ (issue 10) --------------------------------------------
    "web.button.now_title": "Điền thời gian hiện tại",
    "web.label.when": "Ngày và giờ",
    "web.hint.when": (
        "Dạng 2016-04-30T11:18:25.796 (có thể bỏ phần giờ); dùng để điền ô dấu thời gian"
        " (mili giây), giá trị trong ô đó mới là căn cứ."
    ),
    "web.error.when": (
        "Ngày và giờ {value} không phải là ngày; hãy viết dạng 2016-04-30T11:18:25.796 (năm,"
        " tháng, ngày, rồi đến giờ nếu cần)"
    ),
    "web.label.zone": "Hiểu ngày giờ theo",
    "web.zone.utc": "giờ UTC",
    "web.zone.local": "giờ địa phương",
    "web.result.binary": "Nhị phân",
    "web.result.stale": (
        "Kết quả cũ: đây là kết quả hợp lệ gần nhất. Sửa ô được đánh dấu để cập nhật."
    ),
    "web.button.copy_id": "Sao chép ID thập phân",
    "web.button.copy_hex": "Sao chép giá trị thập lục phân",
    "web.button.copy_binary": "Sao chép 64 chữ số nhị phân",
    "web.button.copy_utc": "Sao chép thời gian UTC",
    "web.button.copy_link": "Sao chép liên kết",
    "web.button.copy_link_label": "Sao chép liên kết tới kết quả này",
    "web.announce.id": "Kết quả: ID {id}",
    "web.announce.many": "Đã giải mã {count} ID, {valid} ID hợp lệ",
    "web.step.delta_h": "Bước 1 — tìm độ lệch: dấu thời gian trừ epoch",
    "web.step.shift_h": "Bước 2 — dịch từng trường vào đúng vị trí",
    "web.step.combine_h": (
        "Bước 3 — kết hợp bằng phép OR theo bit (giống phép cộng, vì không có bit nào chồng lên"
        " nhau)"
    ),
    "web.step.shift.timestamp": "độ lệch (dấu thời gian)",
    "web.step.shift.datacenter": "mã trung tâm dữ liệu",
    "web.step.shift.machine": "mã máy",
    "web.step.shift.sequence": "số thứ tự (không dịch: nằm ở 12 bit thấp nhất)",
    "web.decode.too_many": (
        "Có {count} ID; trình giải mã chỉ đọc tối đa {max} ID một lúc. Hãy chia danh sách ra."
    ),
    "web.table.heading": "{count} ID",
    "web.table.id": "ID",
    "web.table.utc": "Thời gian (UTC)",
    "web.table.details": "Chi tiết",
    "web.table.details_label": "Chi tiết của ID {id}",
    "web.rel.now": "bây giờ",
    "web.rel.past.second_one": "1 giây trước",
    "web.rel.past.second": "{n} giây trước",
    "web.rel.past.minute_one": "1 phút trước",
    "web.rel.past.minute": "{n} phút trước",
    "web.rel.past.hour_one": "1 giờ trước",
    "web.rel.past.hour": "{n} giờ trước",
    "web.rel.past.day_one": "1 ngày trước",
    "web.rel.past.day": "{n} ngày trước",
    "web.rel.past.month_one": "1 tháng trước",
    "web.rel.past.month": "{n} tháng trước",
    "web.rel.past.year_one": "1 năm trước",
    "web.rel.past.year": "{n} năm trước",
    "web.rel.future.second_one": "sau 1 giây nữa",
    "web.rel.future.second": "sau {n} giây nữa",
    "web.rel.future.minute_one": "sau 1 phút nữa",
    "web.rel.future.minute": "sau {n} phút nữa",
    "web.rel.future.hour_one": "sau 1 giờ nữa",
    "web.rel.future.hour": "sau {n} giờ nữa",
    "web.rel.future.day_one": "sau 1 ngày nữa",
    "web.rel.future.day": "sau {n} ngày nữa",
    "web.rel.future.month_one": "sau 1 tháng nữa",
    "web.rel.future.month": "sau {n} tháng nữa",
    "web.rel.future.year_one": "sau 1 năm nữa",
    "web.rel.future.year": "sau {n} năm nữa",
    # --- mọi bố cục: chọn bố cục, các cách đọc khác, cảnh báo (issue 11) ------------------
    "web.nav.range": "Khoảng thời gian",
    "web.label.layout": "Bố cục",
    "web.pasted.auto": "Theo liên kết (nếu không: Twitter)",
    "web.pasted.source": "Đọc theo bố cục {layout}: bố cục mà liên kết cho biết.",
    "web.pasted.normalised": "Đã đọc thành {value}.",
    # --- issue 25: những gì người xem dán vào và sao chép ra -----------------------------
    "web.pasted.compose_it": "Tạo ID tại thời điểm này",
    "web.pasted.lead": (
        "Kết quả là {label} mà liên kết trỏ tới ({value}); các ID khác của liên kết nằm ngay"
        " dưới thời gian."
    ),
    "web.fix.link_layout": "Đọc theo {layout}",
    "web.linked.intro": "Liên kết này còn chứa các ID sau, mỗi ID có thời điểm riêng:",
    "web.copies.heading": "Sao chép thời gian dạng",
    "web.copies.unix_seconds": "Giây Unix",
    "web.copies.unix_seconds_button": "Sao chép thời gian tính bằng giây Unix",
    "web.copies.discord": "Discord",
    "web.copies.discord_button": "Sao chép thời gian dưới dạng mã thời gian của Discord",
    "web.copies.iso": "ISO 8601",
    "web.copies.iso_button": "Sao chép thời gian theo định dạng ISO 8601",
    "web.hint.layout": (
        "Cách chia 64 bit. Mặc định là Twitter; các bố cục khác dùng để đọc ID do những hệ"
        " thống đó tạo ra."
    ),
    "web.result.layout": "Bố cục",
    "web.layout.unknown": (
        "Không có bố cục nào tên {value}; hãy chọn một bố cục trong danh sách: {allowed}."
    ),
    "web.layout.summary": "epoch {epoch} ({epoch_ms} ms), thời gian tính theo đơn vị {unit} ms",
    "web.result.past_9999": "sau năm 9999 (mili giây Unix {timestamp})",
    "web.result.reading": "Cách đọc từng trường, tính từng bước",
    "web.result.why_no_generator": "Vì sao trình tạo chỉ tạo ID của Twitter",
    "web.result.open_range": "Xem mọi ID của bố cục này được tạo cùng thời điểm",
    "web.warning.label": "Cảnh báo:",
    "web.warning_short.before_first_snowflake": "có trước Snowflake: có thể không chứa thời gian",
    "web.warning_short.in_the_future": "đi trước hiện tại hơn một ngày",
    "web.announce.warnings": "Cảnh báo: {count}, hiển thị bên dưới thời gian.",
    "web.readings.intro": (
        "Chỉ nhìn con số thì không biết hệ thống nào đã tạo ra nó. Đọc theo các bố cục dưới đây,"
        " nó cũng cho ra một thời điểm đã qua, hoặc chậm nhất là ngày mai; nếu số này không đến từ"
        " {layout}, hãy chọn bố cục mà nó thực sự đến từ đó."
    ),
    "web.readings.none": (
        "Không có bố cục dựng sẵn nào khác đọc số này thành một thời điểm nằm giữa epoch của"
        " bố cục và ngày mai."
    ),
    "web.readings.layout": "Bố cục",
    "web.readings.fields": "Các trường",
    "web.readings.choose": "Giải mã",
    "web.readings.open": "Đọc theo {layout}",
    "web.block.value_ticks": "giá trị {value} (số đơn vị {unit} ms kể từ epoch)",
    "web.lstep.extract_h": (
        "Bước 1 — tách từng trường: dịch phải qua các trường nằm dưới nó (>>), rồi giữ lại các"
        " bit của riêng nó (& với giá trị lớn nhất của trường)"
    ),
    "web.lstep.time_h": (
        "Bước 2 — thời gian: epoch của bố cục cộng với trường thời gian tính ra mili giây"
    ),
    "web.field.timestamp": "Dấu thời gian",
    "web.field.time": "Thời gian",
    "web.field.datacenter": "Trung tâm dữ liệu",
    "web.field.machine": "Máy",
    "web.field.sequence": "Số thứ tự",
    "web.field.worker": "Nút xử lý",
    "web.field.process": "Tiến trình",
    "web.field.increment": "Số đếm tăng dần",
    "web.field.shard": "Phân mảnh (shard)",
    # --- các ID giữa hai thời điểm (issue 11) -------------------------------------------------
    "web.range.title": "ID Snowflake giữa hai thời điểm: cận dưới và cận trên cho WHERE id BETWEEN",
    "web.range.description": (
        "Nhập hai thời điểm theo giờ UTC và chọn bố cục (Twitter, Discord, Instagram, Sonyflake,"
        " Mastodon) để biết ID nhỏ nhất và lớn nhất được tạo giữa hai thời điểm đó, sẵn sàng"
        " sao chép vào SQL dưới dạng WHERE id BETWEEN <cận dưới> AND <cận trên>."
    ),
    "web.range.heading": "Các ID được tạo giữa hai thời điểm",
    "web.range.intro": (
        "Chọn một khoảng thời gian, theo giờ UTC hoặc múi giờ của bạn, và một bố cục. Kết quả là"
        " ID đầu tiên và ID cuối cùng có thể được tạo trong khoảng đó, để WHERE id BETWEEN"
        " <cận dưới> AND <cận trên> chọn đúng các ID của khoảng ấy; hai giá trị này cũng dùng"
        " được làm since_id và max_id khi gọi API."
    ),
    "web.label.from": "Từ (UTC)",
    "web.hint.from": "Ngày giờ theo UTC, chính xác đến mili giây; tính cả thời điểm này.",
    "web.label.to": "Đến (UTC)",
    "web.hint.to": "Tính cả thời điểm này. Để trống nghĩa là bây giờ.",
    "web.button.range": "Tìm các ID",
    "web.range.from_required": "Hãy chọn thời điểm bắt đầu (ngày và giờ).",
    "web.range.result_heading": "Các ID của khoảng thời gian này",
    "web.range.from_utc": "Từ (UTC)",
    "web.range.to_utc": "Đến (UTC)",
    "web.range.now": "để trống: bây giờ",
    "web.range.low": "Cận dưới (ID đầu tiên)",
    "web.range.high": "Cận trên (ID cuối cùng)",
    "web.range.empty": (
        "Không ID nào của bố cục này có thể được tạo trong khoảng đó: thời điểm kết thúc đứng"
        " trước thời điểm bắt đầu, hoặc cả khoảng nằm ngoài thời gian mà bố cục biểu diễn được."
    ),
    "web.range.sql_heading": "SQL",
    "web.range.sql_intro": "Tính cả hai đầu; cột ID trong bảng của bạn có thể mang tên khác.",
    "web.range.before_epoch": (
        "Khoảng thời gian bắt đầu trước epoch của {layout}, lúc chưa có ID nào: cận dưới là"
        " ID đầu tiên của bố cục."
    ),
    "web.range.after_end": (
        "Khoảng thời gian kết thúc sau thời điểm cuối cùng mà ID của {layout} biểu diễn được:"
        " cận trên là ID cuối cùng của bố cục."
    ),
    "web.range.ticks": (
        "{layout} tính thời gian theo từng nhịp {unit} ms: thời điểm bắt đầu rơi vào giữa một"
        " nhịp được dời lên nhịp kế tiếp, còn thời điểm kết thúc rơi vào giữa một nhịp thì vẫn"
        " giữ các ID của nhịp đó."
    ),
    "web.range.signed": (
        "ID {layout} từ {wrap} trở đi dùng đến bit 63, nên cột số nguyên 64 bit có dấu"
        " (bigint của PostgreSQL, như hàm next_id() của Instagram ghi vào; INTEGER của"
        " SQLite) lưu chúng thành số âm: câu SQL được viết cho loại cột này, thành hai"
        " khoảng khi khung thời gian vắt qua thời điểm đó. Với cột số nguyên 64 bit không"
        " dấu (BIGINT UNSIGNED của MySQL, UBIGINT của DuckDB), hãy dùng BETWEEN low AND high."
    ),
    "web.range.decode_low": "Giải mã cận dưới",
    "web.range.decode_high": "Giải mã cận trên",
    "web.range.api": "Kết quả tương tự từ API JSON",
    "web.range.how_h": "Cách tìm hai giá trị này",
    "web.range.how_1": (
        "Thời gian nằm ở các bit cao nhất của ID Snowflake, nên các ID xếp theo thứ tự thời điểm"
        " chúng được tạo. ID đầu tiên của một mili giây có mọi bit bên dưới phần thời gian bằng"
        " 0, ID cuối cùng có tất cả các bit đó bằng 1. Cận dưới là ID đầu tiên của mili giây"
        " đầu tiên trong khoảng, cận trên là ID cuối cùng của mili giây cuối cùng: tính cả hai đầu, và không"
        " ID nào được tạo ngoài khoảng lại nằm giữa hai giá trị này."
    ),
    "web.range.how_2": (
        "snowid chỉ tạo ID theo bố cục của Twitter. Các bố cục khác có mặt ở đây để truy vấn"
        " ID do hệ thống khác tạo ra, để chọn dữ liệu kiểm thử và để kiểm tra khi chuyển dữ liệu."
    ),
    "web.button.copy_low": "Sao chép cận dưới",
    "web.button.copy_high": "Sao chép cận trên",
    "web.button.copy_sql": "Sao chép câu SQL",
    "web.announce.range": "cận dưới {low}, cận trên {high}",
    "web.announce.range_empty": "Không có ID nào trong khoảng đó",
    "web.faq.layouts_q": (
        "Công cụ này có tạo được ID theo bố cục khác, chẳng hạn của Discord hay Instagram, không?"
    ),
    "web.faq.layouts_a": (
        "Không. Việc tạo ID chỉ dùng bố cục của Twitter với epoch cố định của Twitter. Các"
        " bố cục khác mà trình giải mã hiểu (Discord, Instagram, Sonyflake, Sonyflake v2 và"
        " Mastodon) dùng để đọc những ID đã có, tìm các ID được tạo giữa hai"
        " thời điểm, và ghép ID cho việc kiểm thử hay chuyển dữ liệu (migration)."
    ),
    "web.faq.range_link": "Tìm các ID giữa hai thời điểm",
    # --- bố cục hiển thị cũng là bố cục được giải thích; chữ và số (issue 19) -------------
    "web.block.sign": "Bit dấu",
    "web.explain.gen_heading": "ID {layout} được tạo như thế nào",
    "web.explain.gen_structure": (
        "ID {layout} là một số nguyên 64 bit. Đọc từ bit có trọng số cao nhất xuống, ID gồm:"
        " {parts}. Vì thời gian nằm ở các bit cao nhất, ID tạo sau luôn là số lớn hơn."
    ),
    "web.explain.part_sign": "một bit dấu luôn bằng 0 nên ID luôn là số dương",
    "web.explain.part_time": "{width} bit thời gian, tính bằng {tick} kể từ {epoch}",
    "web.explain.part_field": "{label}: {width} bit",
    "web.explain.ms": "mili giây",
    "web.explain.tick": "nhịp {unit} ms",
    "web.explain.unsigned": (
        "Không có bit dấu: thời gian bắt đầu ngay từ bit 63, nên một cột số nguyên 64 bit có"
        " dấu sẽ hiển thị các ID lớn thành số âm. Hãy lưu chúng dưới dạng số không dấu, chuỗi"
        " ký tự hoặc một kiểu số rộng hơn."
    ),
    "web.explain.gen_formula": (
        "Gọi t là thời điểm tính bằng mili giây Unix; d là trường thời gian: số {tick} kể từ"
        " epoch. {legend}. Mỗi trường được dịch trái qua các trường nằm bên dưới nó; dịch"
        " {shift} bit nghĩa là nhân với {power}. Các trường sau khi dịch không chồng lên nhau,"
        " nên phép OR cho cùng kết quả với phép cộng."
    ),
    "web.explain.letter": "{letter} là {label}",
    "web.explain.fields_h": "Các trường",
    "web.explain.meaning_time": "Số {tick} kể từ epoch, {epoch}.",
    "web.explain.values": "Giá trị từ 0 đến {max}.",
    "web.explain.gen_epoch": (
        "Epoch: thời gian được tính từ {epoch} ({epoch_ms} ms). Không biểu diễn được các thời"
        " điểm sớm hơn."
    ),
    "web.explain.gen_end": (
        "Điểm cuối: {width} bit {tick} đủ dùng khoảng {years} năm; thời điểm cuối cùng một ID"
        " biểu diễn được là {end}."
    ),
    "web.explain.gen_per_tick": (
        "Trong một nhịp: bên dưới phần thời gian có {bits} bit, nên tối đa {count} ID khác nhau"
        " có cùng một giá trị thời gian ({tick})."
    ),
    "web.explain.example_h": "Ví dụ tính từng bước",
    "web.explain.example": (
        "Các giá trị ban đầu của biểu mẫu: dấu thời gian {timestamp} ({utc}) cách epoch đúng"
        " {delta} ms, nên d = {delta}. Với trung tâm dữ liệu {datacenter}, máy {machine} và số"
        " thứ tự {sequence}: d << 22 = {d_shift}, {datacenter} << 17 = {c_shift},"
        " {machine} << 12 = {m_shift}, và ID là {d_shift} + {c_shift} + {m_shift} +"
        " {sequence} = {id}."
    ),
    "web.meaning.datacenter": "Trung tâm dữ liệu của máy đã tạo ID.",
    "web.meaning.machine": "Máy đã tạo ID.",
    "web.meaning.sequence": (
        "Đếm các ID mà một bộ tạo sinh ra trong cùng một giá trị thời gian; quay về 0 khi thời"
        " gian sang giá trị mới."
    ),
    "web.meaning.instagram.sequence": (
        "Số thứ tự riêng của từng bảng, lấy theo mô-đun 1024: phân biệt các ID của một phân"
        " mảnh trong cùng một mili giây."
    ),
    "web.meaning.mastodon.sequence": (
        "Không phải bộ đếm: hai byte của một mã băm từ tên bảng, một giá trị bí mật và thời"
        " điểm, cộng với số thứ tự của bảng. Nó chỉ phân biệt các ID trong cùng một mili giây."
    ),
    "web.meaning.worker": "Nút xử lý nội bộ của Discord đã tạo ID.",
    "web.meaning.process": "Tiến trình chạy trên nút xử lý đó.",
    "web.meaning.increment": "Tăng thêm một với mỗi ID mà tiến trình đó tạo ra.",
    "web.meaning.shard": "Phân mảnh logic (một phần của cơ sở dữ liệu) chứa dòng dữ liệu.",
    "web.layout.legend": "Đọc ID theo bố cục",
    "web.layout.remembered": (
        "Lựa chọn lần trước của bạn, được trình duyệt này ghi nhớ: áp dụng cho số nhập trực"
        " tiếp; liên kết hay lượt nhắc luôn được đọc theo bố cục của chính nó."
    ),
    "web.readings.also": "Nếu là ID Discord, số này có từ {time}:",
    "web.readings.more": "Các cách đọc khác ({count})",
    # --- issue 19 §5, §7: lỗi kèm cách sửa, múi giờ của khoảng, bảng, điện thoại
    "web.fix.before_epoch": "Dấu thời gian {value} sớm hơn mốc epoch của {layout}.",
    "web.fix.seconds": "Có vẻ là giây: dùng {milliseconds} (mili giây)",
    "web.fix.allowed": "Cho phép: {min}..{max} ({min_utc} .. {max_utc}).",
    "web.fix.swap": "Đổi chỗ hai thời điểm",
    "web.link_fixed": (
        "Liên kết giữ dấu thời gian {timestamp}, thời điểm đã dùng, nên mở lại đúng ID này."
    ),
    "web.label.range_from": "Từ",
    "web.hint.range_from": (
        "Dạng 2016-04-30T11:18:25.796 (có thể bỏ phần giờ), theo múi giờ bạn chọn; tính cả"
        " thời điểm này."
    ),
    "web.label.range_to": "Đến",
    "web.hint.range_to": "Tính cả thời điểm này. Để trống nghĩa là bây giờ.",
    "web.hint.range_zone": (
        "Giờ UTC, hoặc múi giờ của bạn theo tên (chọn được ở đây khi JavaScript chạy); liên kết"
        " giữ múi giờ, nên ở đâu cũng mở ra đúng khoảng thời gian này."
    ),
    "web.range.from_zone": "Từ ({zone})",
    "web.range.to_zone": "Đến ({zone})",
    "web.table.copy_all": "Sao chép tất cả",
    "web.table.copy_all_label": "Sao chép tất cả: cả bảng, phân cách bằng tab, để dán vào bảng tính",
    "web.table.sort_time": "Sắp xếp theo thời gian",
    "web.table.sort_input": "Về thứ tự đã nhập",
    "web.table.sorted": "Đã sắp xếp theo thời gian, sớm nhất trước.",
    "web.peek.label": "Kết quả trực tiếp",
}
