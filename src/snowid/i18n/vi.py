"""Thông điệp tiếng Việt: lỗi (theo mã lỗi) và dòng lệnh."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- lỗi: dữ liệu nhập ----------------------------------------------------
    "snowid_error": "lỗi snowid",
    "invalid_value": "{field} {value} không phải là giá trị hợp lệ",
    "not_an_integer": "{field} {value} không phải là số nguyên",
    "contains_spaces": "{field} {value} có khoảng trắng; chỉ nhập các chữ số, không kèm dấu cách",
    "not_an_id_or_link": (
        "{field} {value} không phải là ID mà snowid đọc được: hãy dán một ID, hoặc liên kết"
        " tweet, Discord, Mastodon hay Instagram"
    ),
    "not_an_id_or_link.site": (
        "{field} {value} là liên kết tới {site}, trang mà snowid không đọc ID từ liên kết;"
        " snowid đọc liên kết tới tweet, tin nhắn Discord, bài đăng Mastodon và bài đăng"
        " Instagram"
    ),
    "not_an_id_or_link.twitter": (
        "{field} {value} là liên kết tới {site} nhưng không dẫn tới một tweet: liên kết của"
        " tweet có /status/ và số của tweet, ví dụ x.com/TÊN/status/SỐ"
    ),
    "not_an_id_or_link.discord": (
        "{field} {value} là liên kết tới {site} nhưng không dẫn tới tin nhắn hay kênh nào:"
        " liên kết đó có dạng discord.com/channels/MÁY_CHỦ/KÊNH/TIN_NHẮN (nhấp chuột phải vào"
        " tin nhắn, chọn Sao chép liên kết tin nhắn)"
    ),
    "not_an_id_or_link.instagram": (
        "{field} {value} là liên kết tới {site} nhưng không dẫn tới bài đăng nào: liên kết bài"
        " đăng có /p/, /reel/ hoặc /tv/ kèm mã bài đăng, ví dụ instagram.com/p/MÃ/"
    ),
    "not_an_id_or_link.mastodon": (
        "{field} {value} là liên kết tới một bài đăng trên {site}, nhưng số của bài không phải"
        " ID Snowflake: ID của Mastodon có 16 đến 19 chữ số (bài đăng từ trước Mastodon 2.0"
        " được đánh số lần lượt, không chứa thời gian)"
    ),
    "not_an_id_or_link.mention": (
        "{field} {value} trông như một lượt nhắc (mention) của Discord nhưng không chứa ID:"
        " snowid đọc được <@ID>, <@!ID>, <#ID>, <@&ID>, <:tên:ID> và <a:tên:ID>"
    ),
    "instagram_share_link": (
        "{field} {value} là liên kết chia sẻ của Instagram: phần sau /share/ là mã chia sẻ dẫn"
        " tới bài đăng, không phải mã của bài đăng, nên không chứa ID. Hãy mở liên kết rồi dán"
        " địa chỉ của trang vừa mở (instagram.com/p/… hoặc /reel/…)"
    ),
    "layout_conflict": (
        "{field} {value} mâu thuẫn với liên kết đã dán: {text} đến từ {layout}, nên các ID"
        " trong đó là ID {layout}; hãy chọn {layout}, hoặc để liên kết tự quyết định"
    ),
    "layout_conflict.list": (
        "{text} đến từ {layout}, nhưng danh sách này đang được đọc theo ID {value}: hãy"
        " giải mã liên kết {layout} riêng, hoặc trong một danh sách chỉ gồm liên kết {layout}"
    ),
    "digit_groups": "{field} {value}: các nhóm chữ số tách bằng {separator} không đều",
    "digit_groups.irregular": (
        "{field} {value}: các nhóm chữ số tách bằng {separator} không đều (nhóm đầu 1 đến 3"
        " chữ số, các nhóm sau đúng 3 chữ số); hãy viết liền các chữ số, bỏ {separator}"
    ),
    "digit_groups.ambiguous": (
        "{field} {value} không rõ nghĩa: một dấu {separator} duy nhất có thể là dấu phân cách"
        " hàng nghìn hoặc dấu thập phân (tiếng Việt viết một phẩy năm là 1,5); hãy viết liền"
        " các chữ số"
    ),
    "wrong_type": "{function} chỉ nhận kiểu {expected} cho {field}, không nhận {given_type} ({value})",
    "empty_value": "{field} đang để trống; cần nhập một số nguyên",
    "number_too_long": "{field} {value} có tới {digits} chữ số, vượt xa phạm vi của mọi trường",
    "out_of_range": "{field} {value} nằm ngoài phạm vi cho phép {min}..{max}",
    "timestamp_before_epoch": (
        "dấu thời gian {value} sớm hơn epoch của {layout}; phạm vi cho phép là {min}..{max}"
        " ({min_utc} .. {max_utc})"
    ),
    "timestamp_before_epoch.seconds": (
        "dấu thời gian {value} sớm hơn epoch của {layout}; phạm vi cho phép là {min}..{max}"
        " ({min_utc} .. {max_utc}); giá trị này có vẻ tính bằng giây; đổi ra mili giây là"
        " {milliseconds}"
    ),
    "timestamp_after_end": (
        "dấu thời gian {value} vượt quá {max_utc}, thời điểm cuối cùng mà ID {layout} chứa"
        " được; phạm vi cho phép là {min}..{max}"
    ),
    "invalid_id": "{field} {value} không phải là ID theo bố cục {layout} (0..{max})",
    "id_negative": "{field} {value} là số âm; ID {layout} nằm trong phạm vi 0..{max}",
    "id_too_large": (
        "{field} {value} cần nhiều hơn {bits} bit; ID {layout} nằm trong phạm vi 0..{max}"
    ),
    "id_sign_bit_set": (
        "{field} {value} có bit dấu (bit {bit}) bằng 1; ID {layout} nằm trong phạm vi"
        " 0..{max} (ID của Discord, Instagram và Mastodon dùng bit {bit} cho thời gian nên"
        " có thể lớn đến vậy)"
    ),
    "window_reversed": (
        "{field} {value} nằm trước thời điểm bắt đầu {start}: hai mốc thời gian bị đảo"
        " ngược; hãy ghi mốc sớm hơn trước"
    ),
    "duplicate_parameter": (
        "tham số truy vấn {parameter} xuất hiện {count} lần ({value}); mỗi tham số chỉ được"
        " ghi một lần"
    ),
    "unknown_parameter": (
        "đường dẫn này không đọc tham số truy vấn {parameter} ({value}); các tham số được"
        " nhận: {allowed}"
    ),
    "unknown_parameter.form": (
        "trường biểu mẫu {parameter} ({value}) không được đọc: đường dẫn này chỉ nhận tham số"
        " trong chuỗi truy vấn: {allowed}"
    ),
    "unknown_parameter.body": (
        "khóa {parameter} ({value}) trong thân JSON không được đọc: đường dẫn này chỉ nhận"
        " tham số trong chuỗi truy vấn: {allowed}"
    ),
    "number_not_a_date": (
        "{field} {value} là một con số, không phải ngày; hãy viết ngày giờ dạng"
        " 2016-04-30T11:18:25.796, hoặc nhập mili giây Unix (13 chữ số, ví dụ 1462015105796)"
    ),
    "number_not_a_date.seconds": (
        "{field} {value} là một con số, không phải ngày; nếu là giây Unix thì bằng"
        " {milliseconds} mili giây, hoặc hãy viết ngày giờ dạng 2016-04-30T11:18:25.796"
    ),
    "invalid_time_zone": (
        "{field} {value} không phải múi giờ mà máy chủ này biết; hãy chọn UTC hoặc tên một"
        " múi giờ như Asia/Ho_Chi_Minh"
    ),
    "invalid_lease_url": "không dùng được URL {field} {value}",
    "invalid_layout": "không dùng được {field} {value}",
    "invalid_layout.unknown": (
        "không có {field} nào tên {value}; các bố cục có sẵn: {allowed}; hoặc tự mô tả bố cục"
        " của bạn theo dạng epoch=MS,unit=MS,fields=TÊN:SỐ_BIT,TÊN:SỐ_BIT,…"
    ),
    "invalid_layout.unknown_builtin": (
        "không có {field} nào tên {value}; các bố cục có sẵn: {allowed} (ghi đúng tên, chữ"
        " thường; bố cục tự mô tả chỉ dùng được trong thư viện và dòng lệnh, không dùng được"
        " ở dịch vụ này)"
    ),
    "invalid_layout.syntax": (
        "không đọc được {field} {value}; hãy viết theo dạng epoch=MS,unit=MS,"
        "fields=TÊN:SỐ_BIT,…, trường thời gian đứng đầu, thêm signed=no khi bit 63 thuộc về"
        " thời gian (ví dụ epoch=1409529600000,unit=10,fields=time:39,sequence:8,machine:16)"
    ),
    "invalid_layout.field_name": (
        "không dùng được {field} {value}: tên trường {name} không hợp lệ; chỉ dùng chữ cái"
        " ASCII viết thường, chữ số và dấu _, bắt đầu bằng một chữ cái"
    ),
    "invalid_layout.duplicate_field": (
        "không dùng được {field} {value}: trường {name} xuất hiện hai lần"
    ),
    "invalid_layout.reserved_field": (
        "không dùng được {field} {value}: không thể đặt tên {name} cho một trường đứng sau"
        " trường thời gian (hàm compose đã dùng tên này cho tham số của chính nó)"
    ),
    "invalid_layout.width": (
        "không dùng được {field} {value}: trường {name} rộng {width} bit; mỗi trường rộng"
        " từ 1 đến {max} bit"
    ),
    "invalid_layout.total_width": (
        "không dùng được {field} {value}: độ rộng các trường cộng lại là {total} bit, không"
        " phải {expected} (64 bit, bớt đi một khi bit 63 là bit dấu)"
    ),
    "invalid_layout.epoch": (
        "không dùng được {field} {value}: epoch {epoch} nằm ngoài phạm vi 0..{max} (mili giây Unix)"
    ),
    "invalid_layout.unit": (
        "không dùng được {field} {value}: đơn vị thời gian {unit} ms nằm ngoài phạm vi 1..{max}"
    ),
    "invalid_layout.time_range": (
        "không dùng được {field} {value}: thời điểm cuối cùng của nó sẽ là {last} ms, vượt"
        " quá {max}, số lớn nhất mà một số JSON giữ được chính xác; hãy bớt số bit thời gian"
        " hoặc dùng đơn vị nhỏ hơn"
    ),
    "invalid_layout.no_fields": (
        "không dùng được {field} {value}: một bố cục cần ít nhất trường thời gian của nó"
    ),
    "unknown_field": (
        "ID {layout} không có trường {field} (giá trị đã nhập: {value}); các trường của nó:"
        " {allowed}"
    ),
    "invalid_encoding": "{field} {value} không phải là một số trong hệ cơ số đó",
    "invalid_encoding.unknown_base": (
        "không có {field} nào tên {value}; các hệ cơ số được hỗ trợ: {allowed}"
    ),
    "invalid_encoding.digit": (
        "{field} {value} không phải là số {base}: ký tự {character} ở vị trí {position} không"
        " phải là chữ số của hệ này ({allowed})"
    ),
    "invalid_datetime": (
        "{field} {value} không phải là thời điểm; hãy nhập mili giây Unix (ví dụ"
        " 1462015105796) hoặc ngày giờ theo ISO 8601 (ví dụ 2016-04-30T11:18:25.796Z; không"
        " ghi múi giờ thì hiểu là UTC)"
    ),
    # --- lỗi: bộ tạo ID -------------------------------------------------------
    "generator_error": "bộ tạo không thể cấp ID một cách an toàn",
    "clock_moved_backwards": (
        "đồng hồ đã lùi {step_ms} ms, nhiều hơn mức cho phép {tolerance_ms} ms;"
        " sẽ không cấp ID nào cho đến khi đồng hồ đuổi kịp"
    ),
    "end_of_time": (
        "đồng hồ đang ở {timestamp}, đã vượt {max} (2080-07-10T17:30:30.208Z), mili giây cuối"
        " cùng mà ID bố cục Twitter chứa được"
    ),
    "forked_generator": (
        "tiến trình này được fork từ tiến trình đang giữ trung tâm dữ liệu {datacenter}, máy"
        " {machine}; tiến trình con không được cấp ID bằng danh tính của tiến trình cha. Hãy"
        " tạo một Generator mới với danh tính khác trong tiến trình con, hoặc dùng cơ chế thuê"
        " (ví dụ --lease file:// hoặc SNOWID_LEASE) để mỗi tiến trình tự nhận danh tính riêng"
    ),
    "generator_sealed": (
        "bộ sinh này đã bị niêm phong khi hợp đồng thuê của nó trên worker {worker} được đóng,"
        " để bên giữ tiếp theo bắt đầu ngay sau mốc thời gian cuối của nó ({mark_ms}); nó không"
        " cấp thêm ID nào. Hãy mở một hợp đồng thuê mới và một Generator mới"
    ),
    "ceiling_reached": (
        "đồng hồ ({timestamp}) đã vượt mức trần đã xác nhận {ceiling} và mức trần không được"
        " nâng lên trong {waited_ms} ms"
    ),
    "clock_policy": "{field} {value} không phải là chính sách khi đồng hồ lùi mà snowid dùng được",
    "clock_policy.syntax": (
        "{field} {value} không phải là một chính sách khi đồng hồ lùi: hãy viết raise, ride:N,"
        " wait:N hoặc logical:N (N tính bằng mili giây, 0..86400000)"
    ),
    "clock_policy.needs_ms": (
        "không dùng được {field} {value}: chính sách {policy} cần giới hạn của nó, dạng"
        " {policy}:N (N tính bằng mili giây, 0..86400000)"
    ),
    "clock_policy.no_ms": (
        "không dùng được {field} {value}: raise không nhận giới hạn nào; hãy viết raise"
    ),
    "clock_policy.lead": (
        "không dùng được {field} {value}: với {fence}, đồng hồ logic chỉ được đi trước đồng hồ"
        " thực tối đa {max} ms (max_skew của quyền thuê); phạm vi cho phép là logical:0..{max}"
    ),
    "clock_policy.no_mark": (
        "không dùng được {field} {value} với {fence}: nó không lưu mốc cao nhất, nên sau khi"
        " khởi động lại không có gì giữ ID mới cao hơn những ID đã cấp trước đồng hồ; hãy thuê"
        " danh tính (static://D/M?state_dir=DIR, khe file: hoặc một kho lưu trữ)"
    ),
    "clock_policy.both": (
        "không dùng được {field} {value} cùng với max_backward_ms: hãy chỉ đưa một trong hai"
        " (max_backward_ms=N chính là clock_back='ride:N')"
    ),
    # --- lỗi: thuê danh tính --------------------------------------------------
    "lease_error": "không thể nhận hoặc giữ danh tính worker",
    "no_free_identity": (
        "không còn danh tính worker trống trong {first}..{last} của {store}: tất cả đều đã có"
        " tiến trình giữ"
    ),
    "lease_lost": "đã mất quyền thuê worker {worker}: {reason}",
    "lease_removed": (
        "bản ghi quyền thuê của worker {worker} đã bị xóa khỏi kho lưu quyền thuê {store}"
        " ({where}) trong lúc tiến trình này đang giữ, nên tiến trình đã ngừng cấp ID theo quyền"
        " thuê đó; không có tiến trình nào nhận lại theo cách thông thường: bản ghi đã bị xóa"
        " (một dòng hoặc khóa bị xóa, một bảng bị làm rỗng). Lần nhận tiếp theo sẽ ghi lại bản"
        " ghi này, có cách ly"
    ),
    "lease_modified": (
        "bản ghi quyền thuê của worker {worker} trong kho lưu quyền thuê {store} ({where}) đã"
        " bị sửa trong lúc tiến trình này đang giữ: chủ sở hữu hoặc epoch của nó đã bị thay"
        " đổi, nhưng không phải do một lần nhận quyền thuê, nên tiến trình đã ngừng cấp ID"
        " theo quyền thuê đó. Bản ghi và mức trần của nó vẫn còn: lần nhận tiếp theo sẽ bắt"
        " đầu từ trên mức trần ấy"
    ),
    "store_failed_over": (
        "kho lưu quyền thuê {store} đã chuyển sang một bản sao (failover) hoặc quay ngược thời"
        " gian trong lúc tiến trình này giữ worker {worker} (lịch sử của nó là {seen}, nay là"
        " {found}), nên tiến trình đã ngừng cấp ID theo quyền thuê đó; lần nhận tiếp theo sẽ"
        " chờ hết thời gian cách ly, cao hơn mọi mức trần mà kho cũ có thể đã cấp, rồi tiếp tục"
    ),
    "store_unreachable": "không kết nối được kho lưu quyền thuê {store}: {reason}",
    "sentinel_unreachable": (
        "không kết nối được kho lưu quyền thuê {store}: không Redis Sentinel nào của kho"
        " ({sentinels}) trả lời: {reason}"
    ),
    "sentinel_service_unknown": (
        "các Redis Sentinel của kho lưu quyền thuê {store} có trả lời, nhưng không Sentinel"
        " nào theo dõi máy chủ chính tên {service} (chúng theo dõi: {known}); hãy kiểm tra"
        " tên dịch vụ trong đường dẫn của URL, redis+sentinel://MÁY:CỔNG,…/DỊCH_VỤ/CSDL"
    ),
    "clock_skew": (
        "đồng hồ của máy này lệch {skew_ms} ms so với kho lưu quyền thuê, vượt mức cho phép"
        " {max_skew_ms} ms"
    ),
    "ceiling_ahead": (
        "mức trần trước đó {ceiling} của worker {worker} đi trước đồng hồ của máy này"
        " {ahead_ms} ms, vượt mức cho phép {max_ms} ms: hoặc đồng hồ của máy này đang chậm,"
        " hoặc mức trần đã lưu bị sai (lệnh snowid lease status --all liệt kê các mức trần)"
    ),
    "unsupported_filesystem": (
        "thư mục trạng thái {path} nằm trên hệ thống tệp {fstype}; khóa slot và mốc ghi cao"
        " nhất cần một hệ thống tệp cục bộ"
    ),
    "slot_quarantined": (
        "cả hai bản ghi mốc cao nhất trong {path} đều hỏng; slot bị cách ly và không bao giờ"
        " được dùng lại một cách âm thầm"
    ),
    "slot_entry": "{path} nằm ở chỗ của một tệp slot nhưng không phải là tệp slot",
    "slot_entry.symlink": (
        "{path} là một liên kết tượng trưng (symlink) nằm ở chỗ của một tệp slot; snowid không"
        " bao giờ mở tệp slot qua liên kết, vì liên kết có thể trỏ tới bất kỳ đâu: hãy xóa liên"
        " kết này"
    ),
    "slot_entry.directory": (
        "{path} là một thư mục nằm ở chỗ của một tệp slot: hãy chuyển nó ra khỏi thư mục trạng thái"
    ),
    "slot_entry.special": (
        "{path} là một tệp đặc biệt (FIFO, socket hoặc tệp thiết bị) nằm ở chỗ của một tệp slot:"
        " hãy chuyển nó ra khỏi thư mục trạng thái"
    ),
    "slot_entry.foreign": (
        "{path} không phải là tệp slot của snowid (không chứa bản ghi mốc cao nhất nào) nên"
        " snowid không bao giờ ghi đè lên nó: hãy chuyển nó ra khỏi thư mục trạng thái"
    ),
    "store_regressed": "kho lưu quyền thuê đã quay ngược thời gian với worker {worker}: {reason}",
    "store_not_durable": (
        "kho lưu quyền thuê {store} có thể làm mất dữ liệu đã xác nhận ghi: {setting} đang là"
        " {found}, chế độ nghiêm ngặt đòi hỏi {required}; hãy sửa cấu hình máy chủ, hoặc thêm"
        " durability=best_effort vào URL nếu chấp nhận rằng mất mức trần có thể sinh ID trùng"
    ),
    "store_not_synchronous": (
        "URL của kho lưu quyền thuê {store} ghi replication=sync, nhưng lúc này kho không sao"
        " chép đồng bộ: {setting} đang là {found}, trong khi cần {required}; không có gì được"
        " cấp dựa trên câu trả lời đó. Hãy sửa việc sao chép, hoặc bỏ replication=sync khỏi"
        " URL (khi đó một lần chuyển đổi dự phòng sẽ cách ly kho)"
    ),
    "store_config_hidden": (
        "kho lưu quyền thuê {store} không cho xem cấu hình lưu trữ bền vững ({reason}), nên chế"
        " độ nghiêm ngặt không thể bảo đảm cho nó; thêm durability=best_effort vào URL nếu chấp"
        " nhận rủi ro"
    ),
    "store_replication_unconfirmed": (
        "kho lưu quyền thuê {store} chỉ được {acked} trên {replicas} bản sao xác nhận lần ghi"
        " trong vòng {timeout_ms} ms; mức trần mới không được dùng"
    ),
    "store_refused": "kho lưu quyền thuê {store} từ chối lệnh: {reason}",
    "store_version": (
        "kho lưu quyền thuê {store} đang chạy {product} {version}; quyền thuê cần {required}"
        " trở lên (để dùng SELECT … FOR UPDATE SKIP LOCKED)"
    ),
    "ordinal_missing": (
        "không đọc được số thứ tự của pod: {source} là {value}, không kết thúc bằng một con"
        " số; hãy chạy trong StatefulSet (các pod có tên dạng TÊN-0, TÊN-1, …) hoặc truyền"
        " nhãn apps.kubernetes.io/pod-index vào biến môi trường mà ordinal_env= chỉ định"
    ),
    "ordinal_not_a_number": (
        "không đọc được số thứ tự của pod: {source} là {value}, không phải một số thập phân"
        " thuần (chỉ gồm chữ số, đúng như nhãn apps.kubernetes.io/pod-index cung cấp); hoặc"
        " bỏ biến này để lấy số thứ tự từ tên pod của StatefulSet"
    ),
    "ordinal_out_of_range": (
        "số thứ tự pod {ordinal} (lấy từ {source} {value}) nằm ngoài khoảng 0..{max_ordinal}:"
        " cộng độ lệch {offset} thì phải nằm trong 0..{max} khi pod_bits={pod_bits}; hãy"
        " giảm offset, giảm số bản sao của StatefulSet, hoặc dành thêm bit cho pod (pod_bits=)"
    ),
    "server_start_failed": (
        "snowid serve đã dừng: một tiến trình máy chủ (trong số {workers}) không khởi động"
        " được; lỗi của nó được ghi ở phía trên"
    ),
    "serve_release_failed": (
        "snowid serve (tiến trình {pid}) đã dừng nhưng danh tính chưa được trả về kho thuê;"
        " nguyên nhân được ghi ở phía trên; danh tính vẫn bị giữ cho đến khi quyền cấp hết hạn"
    ),
    "address_unavailable": "không thể lắng nghe trên {host} cổng {port}: {reason}",
    "not_seconds": (
        "{field} {value} không phải là số giây; hãy ghi một số thập phân, ví dụ 5 hoặc 2.5"
        " (phần lẻ sau dấu chấm)"
    ),
    "not_a_boolean": (
        "{field} {value} không phải là giá trị có/không; chỉ chấp nhận 1, true, yes, on hoặc"
        " 0, false, no, off"
    ),
    "auth_token_file_unreadable": "không đọc được {field} {value}: {reason}",
    "auth_token_file_empty": (
        "{field} {value} không chứa token nào; hãy ghi mỗi dòng một token (dòng trống và dòng"
        " bắt đầu bằng # được bỏ qua)"
    ),
    "password_file_unreadable": "không đọc được {field} {value} của cấu hình thuê {url}: {reason}",
    "password_file_empty": (
        "{field} {value} của cấu hình thuê {url} đang trống; hãy ghi mật khẩu vào tệp đó"
        " (dấu xuống dòng ở cuối được bỏ qua)"
    ),
    "auth_token_file_missing": (
        "{field} đang bật nhưng chưa có tệp token; hãy đặt --auth-token-file hoặc"
        " SNOWID_AUTH_TOKEN_FILE"
    ),
    "metrics_dir_unusable": (
        "không dùng được {field} {value} để các tiến trình worker chia sẻ số liệu: {reason};"
        " hãy chỉ định một thư mục mà người dùng này tạo và ghi được, hoặc bỏ trống"
    ),
    "forwarded_allow_ips": (
        "{field} {value} không phải là danh sách địa chỉ IP hoặc dải mạng; hãy ghi chúng cách"
        " nhau bằng dấu phẩy (10.0.0.1,10.1.0.0/16), hoặc * để tin header proxy của mọi máy"
    ),
    # --- field labels (used inside messages) ---------------------------------
    "field.timestamp": "dấu thời gian",
    "field.datacenter": "mã trung tâm dữ liệu",
    "field.machine": "mã máy",
    "field.sequence": "số thứ tự",
    "field.worker": "mã worker",
    "field.id": "ID",
    "field.count": "số lượng",
    "field.datetime": "thời điểm",
    "field.password_file": "tệp mật khẩu password_file",
    "field.lease": "cấu hình thuê",
    "field.auth_token_file": "tệp token xác thực",
    "field.auth_metrics": "xác thực cho /metrics",
    "field.metrics_dir": "thư mục số liệu",
    "field.forwarded_allow_ips": "danh sách proxy tin cậy (forwarded_allow_ips)",
    "field.time": "thời gian",
    "field.process": "mã tiến trình",
    "field.increment": "số đếm tăng dần",
    "field.shard": "mã phân mảnh (shard)",
    "field.layout": "bố cục",
    "field.base": "hệ cơ số",
    "field.from": "thời điểm bắt đầu",
    "field.to": "thời điểm kết thúc",
    "field.zone": "múi giờ",
    "field.start": "thời điểm bắt đầu",
    "field.end": "thời điểm kết thúc",
    # --- bố cục và cảnh báo ---------------------------------------------------
    "layout.any": "Snowflake",
    "layout.twitter": "Twitter",
    "layout.discord": "Discord",
    "layout.instagram": "Instagram",
    "layout.sonyflake": "Sonyflake",
    "layout.sonyflake-v2": "Sonyflake v2",
    "layout.mastodon": "Mastodon",
    "layout_note.twitter": "bố cục duy nhất mà snowid dùng để tạo ID; bit 63 là bit dấu, luôn bằng 0",
    "layout_note.discord": "bit 63 là bit cao nhất của thời gian: ID là số 64 bit không dấu",
    "layout_note.instagram": (
        "bit 63 là bit cao nhất của thời gian; shard là phân mảnh logic của cơ sở dữ liệu"
    ),
    "layout_note.sonyflake": (
        "thời gian tính theo đơn vị 10 ms; thứ tự trường của Sony là thời gian, số thứ tự, máy"
    ),
    "layout_note.sonyflake-v2": (
        "giá trị mặc định của v2; v2 cho phép mỗi hệ thống đổi độ rộng, đơn vị và mốc bắt đầu"
        " (khi đó hãy dùng bố cục tự định nghĩa)"
    ),
    "layout_note.mastodon": (
        "mili giây Unix; 16 bit thấp là giá trị băm cộng với bộ đếm của từng bảng, không phải"
        " một bộ đếm tuần tự"
    ),
    "warning.before_first_snowflake": (
        "Số này không lớn hơn 29700859247. Những tweet có ID nhỏ như vậy được đánh số bằng"
        " bộ đếm tuần tự cũ của Twitter, trước khi Snowflake ra đời vào tháng 11 năm 2010:"
        " nếu đây là ID của một tweet như thế thì nó không chứa thời gian nào, và thời gian"
        " hiển thị ở trên không phải lúc tweet được đăng. Một ID được ghép cho những giây đầu"
        " tiên sau epoch (như 4194439168) trông cũng giống vậy, và thời gian của nó chính là"
        " thời gian đã dùng để ghép."
    ),
    "estimate.headline": (
        "ID này có từ trước Snowflake (Twitter đánh số tweet bằng một bộ đếm cho đến ngày"
        " {last_day})"
    ),
    "estimate.anchor": (
        "Nếu là một tweet, nó được đăng lúc {best}: đây là tweet đã được công bố thời gian"
        " đăng ({source})."
    ),
    "estimate.interpolated": (
        "Nếu là một tweet, nó được đăng vào khoảng {best}, trong khoảng từ {earliest} đến"
        " {latest}: ước tính từ các tweet đã công bố thời gian đăng đứng sát nó theo ID (có"
        " {anchors} tweet như vậy; khi thử lại trên chính các tweet đó, ước tính này chưa lần"
        " nào lệch quá {uncertainty})."
    ),
    "estimate.gap": (
        "Nếu là một tweet, nó được đăng trong khoảng từ {earliest} đến {latest}, là thời gian"
        " của hai tweet đã công bố gần nó nhất; khoảng {best} nếu tweet được đăng đều đặn"
        " trong quãng đó, nhưng không có tweet đã công bố nào xác nhận điều này."
    ),
    "estimate.before_first": (
        "Nếu là một tweet, nó được đăng vào lúc {latest} hoặc sớm hơn, tức lúc tweet {above}"
        " được đăng: không có tweet đã công bố thời gian nào có ID nhỏ hơn."
    ),
    "estimate.after_last": (
        "Nếu là một tweet, nó được đăng vào lúc {earliest} hoặc muộn hơn, tức lúc tweet"
        " {below} được đăng: không có tweet đã công bố thời gian nào có ID lớn hơn."
    ),
    "estimate.duration": "{hours} giờ {minutes} phút",
    "warning.in_the_future": (
        "Thời gian giải mã được, {datetime}, đi trước hiện tại hơn một ngày: có thể số này"
        " thuộc một bố cục khác, hoặc được tạo ra bởi một đồng hồ chạy sai."
    ),
    "warning.instagram_bigint": (
        "Đọc như số bigint âm mà hàm next_id() của Instagram lưu ({stored}): cùng 64 bit với"
        " ID {id}, là số snowid hiển thị và dùng khi ghép ID."
    ),
    "pasted.server": "máy chủ",
    "pasted.channel": "kênh",
    "pasted.message": "tin nhắn",
    "pasted.user": "người dùng",
    "pasted.role": "vai trò",
    "pasted.emoji": "biểu tượng cảm xúc",
    "pasted.source": "Đọc theo bố cục {layout}: bố cục mà liên kết cho biết.",
    "pasted.time_hint": (
        "{value} trông giống một thời điểm hơn là một ID: đọc theo mili giây Unix, đó là"
        " {datetime}. Tạo ID từ thời điểm này?"
    ),
    # --- dòng lệnh ------------------------------------------------------------
    "cli.bad_line": "dòng {number}: {reason}",
    "cli.skipped_line": "đã bỏ qua dòng {number}: {reason}",
    "cli.bad_row": "hàng {number}: {reason}",
    "cli.skipped_row": "đã bỏ qua hàng {number}: {reason}",
    "cli.decode_one_source": "hãy đưa các ID bằng - (đầu vào chuẩn) hoặc bằng --file, không phải cả hai",
    "cli.decode_one_only": "--from và --steps dành cho một ID, không dành cho - hay --file",
    "cli.decode_no_id": "hãy đưa một ID, - (các ID từ đầu vào chuẩn, mỗi dòng một ID) hoặc --file PATH",
    "cli.decode_many_only": "--column, --format và --output dành cho nhiều ID: hãy đưa - hoặc --file PATH",
    "cli.error": "Lỗi: {message}",
    "cli.output_failed": "không ghi được kết quả ra: {reason}",
    "cli.output.no_space": "ổ đĩa đã hết chỗ trống ({errno})",
    "cli.output.closed": "đầu ra chuẩn (stdout) đã bị đóng ({errno})",
    "cli.output.other": "hệ điều hành báo lỗi {errno} ({text})",
    "cli.id": "ID",
    "cli.hex": "hệ 16",
    "cli.timestamp": "dấu thời gian",
    "cli.datacenter": "trung tâm dữ liệu",
    "cli.machine": "máy",
    "cli.sequence": "số thứ tự",
    "cli.worker": "worker",
    "cli.utc": "thời gian (UTC)",
    "cli.local": "thời gian (giờ địa phương)",
    "cli.bits": "các bit",
    "cli.steps": "công thức",
    "cli.layout": "bố cục",
    "cli.also": "Cũng cho thời gian hợp lý khi đọc theo: {readings} (snowid readings {id})",
    "cli.past_9999": "sau năm 9999 (mili giây Unix {timestamp})",
    "cli.warning": "Cảnh báo: {message}",
    "cli.unix_seconds": "giây Unix",
    "cli.discord_markup": "mã thời gian Discord",
    "cli.iso": "ISO 8601",
    "cli.no_readings": (
        "Không bố cục có sẵn nào cho số này một thời gian hợp lý (không quá một ngày sau hiện tại)."
    ),
    "cli.bit63_sign": "bit 63: bit dấu",
    "cli.bit63_time": "bit 63: thời gian",
    "cli.from": "từ",
    "cli.to": "đến",
    "cli.low": "ID nhỏ nhất",
    "cli.high": "ID lớn nhất",
    "cli.range_empty": "Không có ID nào của bố cục này được tạo trong khoảng thời gian đó.",
    "cli.range_signed": (
        "ID {layout} từ {wrap} trở đi là số âm trong cột 64 bit có dấu (bigint): câu SQL"
        " dành cho loại cột đó; với cột không dấu, hãy dùng BETWEEN low AND high"
    ),
    "segment.sign": "dấu",
    "segment.timestamp": "dấu thời gian",
    "segment.datacenter": "trung tâm dữ liệu",
    "segment.machine": "máy",
    "segment.sequence": "số thứ tự",
    "step.delta": "Bước 1: tìm độ lệch, lấy dấu thời gian trừ epoch",
    "step.timestamp": "Bước 2: dịch độ lệch vào đúng vị trí",
    "step.datacenter": "Bước 2: dịch mã trung tâm dữ liệu vào đúng vị trí",
    "step.machine": "Bước 2: dịch mã máy vào đúng vị trí",
    "step.sequence": "Bước 2: số thứ tự nằm ở các bit thấp nhất",
    "step.combine": "Bước 3: kết hợp bằng phép OR theo bit (giống phép cộng vì không bit nào chồng lấp)",
    # --- generator CLI ---
    "generator_no_identity": (
        "Generator cần một danh tính worker: hãy truyền cả mã trung tâm dữ liệu lẫn mã máy,"
        " hoặc một đối tượng Fence, chẳng hạn quyền thuê lấy từ snowid.lease.open_lease()"
    ),
    # --- leases ---
    "invalid_lease_url.syntax": (
        "không dùng được URL {field} {value}: đây không phải là một URL hợp lệ; hãy đặt địa chỉ"
        " IPv6 trong [ngoặc vuông] và mã hóa phần trăm các ký tự @ : / ? # [ ] trong tên người"
        " dùng và mật khẩu"
    ),
    "invalid_lease_url.unknown_scheme": (
        "không dùng được URL {field} {value}: không hỗ trợ lược đồ {scheme}; chỉ chấp nhận"
        " {allowed}"
    ),
    "invalid_lease_url.unknown_option": (
        "không dùng được URL {field} {value}: không có tùy chọn {options}; các tùy chọn hợp lệ:"
        " {allowed}"
    ),
    "invalid_lease_url.unknown_option.close": (
        "không dùng được URL {field} {value}: không có tùy chọn {options}; có phải ý bạn"
        " là {suggestion}?"
    ),
    "invalid_lease_url.unknown_option.libpq": (
        "không dùng được URL {field} {value}: không có tùy chọn {options}; các tùy chọn hợp lệ:"
        " {allowed}, cùng các tham số kết nối của libpq (sslmode, passfile, application_name,"
        " target_session_attrs …: xem danh sách đầy đủ trong tài liệu PostgreSQL)"
    ),
    "invalid_lease_url.duplicate_option": (
        "không dùng được URL {field} {value}: tùy chọn {option} xuất hiện {count} lần; mỗi tùy"
        " chọn chỉ được ghi một lần"
    ),
    "invalid_lease_url.integer": (
        "không dùng được URL {field} {value}: {option}={text} không phải là số nguyên; chỉ chấp"
        " nhận chữ số ASCII 0-9, trong phạm vi {min}..{max}"
    ),
    "invalid_lease_url.range": (
        "không dùng được URL {field} {value}: {option}={text} nằm ngoài phạm vi cho phép"
        " {min}..{max}"
    ),
    "invalid_lease_url.seconds": (
        "không dùng được URL {field} {value}: {option}={text} không phải là số giây hợp lệ; cần"
        " một số thập phân (ví dụ 2 hoặc 0.5) không nhỏ hơn {min}"
    ),
    "invalid_lease_url.bool": (
        "không dùng được URL {field} {value}: {option}={text} không phải là giá trị có/không;"
        " chỉ chấp nhận 1, true, yes, on hoặc 0, false, no, off"
    ),
    "invalid_lease_url.worker_range": (
        "không dùng được URL {field} {value}: range={text} không phải là dải worker hợp lệ; cần"
        " dạng A-B (hoặc một số N) gồm các số nguyên thỏa 0 <= A <= B <= {max}"
    ),
    "invalid_lease_url.static_identity_missing": (
        "không dùng được URL {field} {value}: cơ chế thuê static: cần một danh tính worker; hãy"
        " dùng static://DATACENTER/MACHINE, static:?datacenter=D&machine=M hoặc"
        " static:?worker=W"
    ),
    "invalid_lease_url.not_a_url": (
        "không dùng được URL {field} {value}: đây không phải URL cấu hình thuê, vốn bắt đầu"
        " bằng loại kho, ví dụ file:///var/lib/snowid, postgresql://MÁY/CSDL, mysql://MÁY/CSDL,"
        " redis://MÁY:6379/0, k8s:?state_dir=THƯ_MỤC hoặc static://1/2; các loại được"
        " chấp nhận: {allowed}"
    ),
    "invalid_lease_url.no_location": (
        "không dùng được URL {field} {value}: cơ chế thuê {scheme} không nhận phần máy chủ"
        " hay đường dẫn, nên {text} sẽ bị bỏ qua; hãy ghi thư mục trạng thái dưới dạng"
        " {scheme}?state_dir=THƯ_MỤC"
    ),
    "invalid_lease_url.file_host": (
        "không dùng được URL {field} {value}: slot tệp chỉ nằm trên chính máy này nên phần máy"
        " chủ phải để trống hoặc là localhost, không được là {host}; hãy dùng file:///đường/dẫn"
    ),
    "invalid_lease_url.port": (
        "không dùng được URL {field} {value}: cổng {port} không phải là số nguyên trong phạm vi"
        " 1..65535"
    ),
    "invalid_lease_url.host_list": (
        "không dùng được URL {field} {value}: cơ chế thuê {scheme} chỉ kết nối tới một máy"
        " chủ, nhưng URL ghi {count} máy chủ; hãy ghi đúng một HOST:PORT"
    ),
    "invalid_lease_url.identifier": (
        "không dùng được URL {field} {value}: {option}={text} không phải là tên SQL đơn giản;"
        " chỉ chấp nhận chữ cái ASCII viết thường, chữ số và dấu _, không bắt đầu bằng chữ số,"
        " tối đa 51 ký tự"
    ),
    "invalid_lease_url.static_workers": (
        "không dùng được URL {field} {value}: không thể dùng chung một danh tính tĩnh cho"
        " {workers} tiến trình worker; hãy dùng slot tệp (mặc định) hoặc PostgreSQL"
    ),
    "invalid_lease_url.choice": (
        "không dùng được URL {field} {value}: không chấp nhận {option}={text}; chỉ chấp nhận"
        " {allowed}"
    ),
    "invalid_lease_url.control_character": (
        "không dùng được URL {field} {value}: URL chứa ký tự điều khiển {text}; URL cấu hình"
        " thuê và các đường dẫn trong đó không được chứa ký tự điều khiển (snowid từ chối URL"
        " như vậy chứ không tự xóa các ký tự đó)"
    ),
    "invalid_lease_url.database_missing": (
        "không dùng được URL {field} {value}: quyền thuê mysql: cần tên cơ sở dữ liệu; dạng"
        " đúng: mysql://NGƯỜI_DÙNG@MÁY:CỔNG/CƠ_SỞ_DỮ_LIỆU?password_file=ĐƯỜNG_DẪN"
    ),
    "invalid_lease_url.password_twice": (
        "không dùng được URL {field} {value}: mật khẩu được cho cả trong URL lẫn trong"
        " password_file=; chỉ cho một lần, trong tệp (mật khẩu nằm trong URL sẽ lọt vào"
        " dòng lệnh và nhật ký)"
    ),
    "invalid_lease_url.key_prefix": (
        "không dùng được URL {field} {value}: tiền tố khóa {text} không hợp lệ; chỉ chấp nhận"
        " chữ cái ASCII, chữ số, _ . - và dấu / giữa các tên (không có tên . hay ..), tối đa"
        " 100 ký tự, ví dụ etcd://HOST:2379/snowid/leases hoặc zookeeper://HOST:2181/snowid"
    ),
    "invalid_lease_url.password_inline": (
        "không dùng được URL {field} {value}: lease {scheme} chỉ nhận mật khẩu từ"
        " password_file=PATH (etcd: cả từ biến môi trường ETCDCTL_PASSWORD), không bao giờ từ URL"
        " (mật khẩu trong URL sẽ lọt vào dòng lệnh và nhật ký)"
    ),
    "invalid_lease_url.sentinel_service": (
        "không dùng được URL {field} {value}: đường dẫn {text} không nêu một dịch vụ Redis"
        " Sentinel; dạng đúng: /DỊCH_VỤ hoặc /DỊCH_VỤ/CSDL (chữ cái ASCII, chữ số, _ . -, tối"
        " đa 100 ký tự; CSDL 0..65535), ví dụ"
        " redis+sentinel://MÁY:26379,MÁY:26379/mymaster/0"
    ),
    "invalid_lease_url.replication_sync": (
        "không dùng được URL {field} {value}: không thể kiểm chứng replication=sync trên"
        " {scheme}: theo chính tài liệu của Redis, WAIT chỉ là nỗ lực tốt nhất (một lần ghi"
        " đã được xác nhận vẫn có thể mất khi chuyển đổi dự phòng); hãy bỏ tùy chọn này (khi"
        " đó một lần chuyển đổi dự phòng sẽ cách ly kho)"
    ),
    "invalid_lease_url.env_name": (
        "không dùng được URL {field} {value}: {option}={text} không phải tên biến môi trường;"
        " chỉ chấp nhận chữ cái ASCII, chữ số và _, không bắt đầu bằng chữ số"
    ),
    "lease_state_dir": (
        "không dùng được URL {field} {value}: không thể tạo, liệt kê hoặc ghi vào thư mục trạng"
        " thái {path} ({reason}); đó phải là một thư mục trên hệ thống tệp cục bộ mà tiến"
        " trình này được phép tạo và ghi"
    ),
    "lease.init.ready": "kho lưu quyền thuê {url} đã sẵn sàng",
    "lease.init.created": "đã tạo kho lưu quyền thuê (mã khởi tạo {incarnation})",
    "lease.init.quarantined": (
        "kho mới: mọi mức trần đã được nâng lên thời điểm hiện tại + ttl + span + max_skew,"
        " nên các lần nhận danh tính đầu tiên phải chờ chừng ấy thời gian (dùng"
        " --first-deployment nếu trước đây chưa từng có kho nào)"
    ),
    "lease.init.upgraded": (
        "đã nâng kho lưu quyền thuê lên định dạng {format}: từ nay kho giữ một bản ghi cho mọi"
        " worker, nên một bản ghi bị xóa về sau sẽ được phân biệt với một bản ghi chưa từng"
        " dùng. Mọi mức trần đã được nâng lên thời điểm hiện tại + {quarantine_ms} ms, vì các"
        " tiến trình chạy phiên bản snowid cũ có thể vẫn đang cấp ID theo bất kỳ danh tính"
        " nào: các lần nhận danh tính sẽ phải chờ chừng ấy thời gian, một lần duy nhất"
    ),
    "lease.init.repaired": (
        "kho đã mất bản ghi quyền thuê của các worker {workers} (tổng cộng {count}): các bản"
        " ghi này đã được ghi lại với mức trần cách ly đến thời điểm hiện tại"
        " + {quarantine_ms} ms, nên các lần nhận những worker đó phải chờ chừng ấy thời gian"
        " và không ID nào đã cấp trước đó bị lặp lại"
    ),
    "lease.forward_jump": (
        "đồng hồ thực đã nhảy lên trước đồng hồ tính từ lúc khởi động máy {jump_ms} ms, vượt"
        " ngưỡng chặn nhảy tới {guard_ms} ms; worker {worker} giữ nguyên mức trần {ceiling} và"
        " không cấp ID nào vượt mức này cho đến khi đồng hồ trở lại đúng giờ hoặc thời điểm"
        " mới giữ ổn định đủ {confirm_ms} ms"
    ),
    "lease.forward_accept": (
        "đồng hồ thực đã chạy trước ổn định {jump_ms} ms suốt {confirm_ms} ms; worker {worker}"
        " chấp nhận thời điểm mới và tiếp tục nâng mức trần"
    ),
    "lease.forward_clear": (
        "đồng hồ thực đã trở lại đúng giờ (lệch {jump_ms} ms so với đồng hồ tính từ lúc khởi"
        " động máy); worker {worker} tiếp tục nâng mức trần"
    ),
    "lease.static_unguarded": (
        "danh tính cố định (trung tâm dữ liệu {datacenter}, máy {machine}) không có state_dir:"
        " tiến trình thứ hai trên máy này (cùng network namespace) sẽ bị từ chối, nhưng không"
        " có gì ngăn một tiến trình trên máy khác, hoặc trong một container có mạng riêng, dùng"
        " cùng danh tính, và hai tiến trình chung một danh tính sẽ cấp ra ID trùng nhau mà"
        " không báo lỗi gì; bạn phải tự bảo đảm danh tính này là duy nhất giữa các máy"
        " (?state_dir=THƯ_MỤC còn khóa nó với các container dùng chung thư mục đó, và giữ mốc"
        " cao nhất qua các lần khởi động lại)"
    ),
    "lease.static_unguarded.no_guard": (
        "danh tính cố định (trung tâm dữ liệu {datacenter}, máy {machine}) không có state_dir:"
        " trên máy này không có gì ngăn một tiến trình khác dùng cùng danh tính, và hai tiến"
        " trình chung một danh tính sẽ cấp ra ID trùng nhau mà không báo lỗi gì; bạn phải tự"
        " bảo đảm danh tính này là duy nhất giữa các tiến trình và các máy (thêm"
        " ?state_dir=THƯ_MỤC để khóa nó trên máy này)"
    ),
    "lease.status.missing": (
        "bản ghi quyền thuê của các worker {workers} (tổng cộng {count}) không còn trong {url}:"
        " chúng đã bị xóa, và có thể vẫn có tiến trình đang cấp ID theo các bản ghi đó cho đến"
        " lần gia hạn tiếp theo; lần nhận tiếp theo trên các worker đó, hoặc lệnh snowid lease"
        " init URL, sẽ ghi lại chúng, có cách ly"
    ),
    "lease.status.none": "không có danh tính nào trong {url} đang được giữ",
    "lease.status.failover": (
        "{url} đã chuyển sang bản sao (failover) hoặc quay ngược thời gian lúc {at} (lịch sử"
        " trước là {seen}, nay là {found}): mọi mức trần đã được nâng lên {until_ms}, nên không"
        " lần nhận nào bắt đầu trước {until} ({state}); các tiến trình giữ quyền thuê từ trước"
        " đã dừng ở lần gia hạn kế tiếp"
    ),
    "lease.status.failover.ends": "thời gian cách ly kết thúc lúc đó",
    "lease.status.failover.ended": "thời gian cách ly đã hết",
    "lease.col.worker": "worker",
    "lease.col.datacenter": "trung tâm dữ liệu",
    "lease.col.machine": "máy",
    "lease.col.held": "đang giữ",
    "lease.col.holder": "tiến trình giữ",
    "lease.col.epoch": "lượt thuê",
    "lease.col.since": "từ lúc (UTC)",
    "lease.col.ceiling": "mức trần",
    "lease.yes": "có",
    "lease.no": "không",
    # --- bộ tạo ID dùng chung của tiến trình (snowid.next_id) ---
    "default_not_configured": (
        "snowid.next_id() chưa có danh tính worker để cấp ID: hãy gọi"
        " snowid.configure(lease=URL) lúc khởi động, hoặc đặt biến môi trường {env}. Chọn file:"
        " nếu mọi tiến trình tạo ID đều chạy trên cùng một máy; chọn một kho dùng chung như"
        " postgresql://HOST/DB nếu nhiều máy cùng tạo ID; hoặc static://DATACENTER/MACHINE nếu"
        " bạn tự gán danh tính cho từng tiến trình"
    ),
    "default_already_configured": (
        "không dùng được {field} {value}: bộ tạo ID dùng chung của tiến trình đã được cấu hình"
        " với {current}; chỉ cấu hình một lần, lúc khởi động (gọi lại với đúng cấu hình cũ thì"
        " không sao)"
    ),
    "static_identity_in_use": (
        "trung tâm dữ liệu {datacenter}, máy {machine} đang được một tiến trình khác trên máy"
        " này (cùng network namespace) giữ, mà mỗi danh tính cố định chỉ thuộc về một tiến"
        " trình tại một thời điểm; hãy gán cho mỗi tiến trình một danh tính riêng, hoặc dùng cơ"
        " chế thuê (file: cho một máy, postgresql://HOST/DB cho nhiều máy) để mỗi tiến trình"
        " tự nhận một danh tính"
    ),
    "static_identity_in_use.pid": (
        "trung tâm dữ liệu {datacenter}, máy {machine} đang được tiến trình {pid} trên máy này"
        " (cùng network namespace) giữ, mà mỗi danh tính cố định chỉ thuộc về một tiến trình"
        " tại một thời điểm; hãy gán cho mỗi tiến trình một danh tính riêng, hoặc dùng cơ chế"
        " thuê (file: cho một máy, postgresql://HOST/DB cho nhiều máy) để mỗi tiến trình tự"
        " nhận một danh tính"
    ),
    "id_float": (
        "{field} {value} là số thực dấu phẩy động, không biểu diễn chính xác được mọi ID 64 bit"
        " (lớn hơn 2^53 thì có thể đã bị làm tròn thành một ID khác); hãy gửi ID dưới dạng"
        " chuỗi chữ số thập phân"
    ),
    # --- lỗi cú pháp dòng lệnh (không bao giờ nhắc lại giá trị người dùng gõ) ---
    "cli.usage": "cách dùng: ",
    "cli.usage_error": "{prog}: lỗi: {message}",
    "cli.arg.named": "đối số {name}: {message}",
    "cli.arg.invalid_choice": "giá trị không hợp lệ; chỉ chấp nhận: {choices}",
    "cli.arg.expected_one": "cần đúng một giá trị đi kèm",
    "cli.arg.expected_at_most_one": "chỉ nhận tối đa một giá trị",
    "cli.arg.expected_at_least_one": "cần ít nhất một giá trị",
    "cli.arg.expected_n": "cần {count} giá trị",
    "cli.arg.no_value": "không nhận giá trị nào",
    "cli.arg.invalid_value": "giá trị không hợp lệ",
    "cli.arg.not_allowed_with": "không được dùng cùng với đối số {other}",
    "cli.arg.required": "thiếu các đối số bắt buộc: {names}",
    "cli.arg.one_required": "cần có một trong các đối số {names}",
    "cli.arg.ambiguous": "tùy chọn {option} chưa rõ ràng: có thể là {matches}",
    "cli.arg.unrecognized": (
        "không nhận ra các đối số: {args} (không nhắc lại giá trị vì có thể chứa mật khẩu)"
    ),
    "cli.arg.invalid": "đối số không hợp lệ; xem --help",
    # --- thêm nhãn trường ---
    "field.port": "cổng",
    "field.workers": "số tiến trình worker",
    "field.max_count": "số ID tối đa mỗi yêu cầu (max_count)",
    "field.drain_seconds": "thời gian rút dần (drain_seconds)",
    "field.max_backward_ms": "mức lùi đồng hồ tối đa (max_backward_ms)",
    "field.max_wait_ms": "thời gian chờ tối đa (max_wait_ms)",
    "field.clock_back": "chính sách khi đồng hồ lùi (clock_back)",
    "field.ceiling_ms": "mức trần (ceiling_ms)",
    "field.start_ms": "thời điểm bắt đầu (start_ms)",
    # --- tích hợp: Django, SQL trong PostgreSQL ---
    "django.made_at": "tạo lúc {time} (giờ UTC)",
    "django.new_key": "mã mới, được cấp khi lưu",
    "drf.key_changed": "không thể đổi mã {current} của bản ghi này thành {value}: bản ghi đã lưu giữ nguyên mã",
    "sqlalchemy.autoincrement": (
        "cột kiểu SnowIdType không thể đặt autoincrement={given}: khi đó cơ sở dữ liệu sẽ tự"
        " đánh số 1, 2, 3..., mà những số này đọc ra là ID tạo vào tháng 11 năm 2010; ID của"
        " cột này phải do snowid cấp (default=new_id)"
    ),
    "invalid_database_url": (
        "{field} {value} không phải là URL PostgreSQL; hãy dùng dạng"
        " postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
    ),
    "invalid_database_url.duckdb": (
        "{field} {value} không phải là tệp cơ sở dữ liệu DuckDB; hãy dùng dạng"
        " duckdb:///PATH/TO/FILE.duckdb"
    ),
    "invalid_database_url.mysql": (
        "{field} {value} không phải là URL MySQL hay MariaDB có tên cơ sở dữ liệu; hãy dùng"
        " dạng mysql://USER@HOST:PORT/DATABASE?password_file=PATH"
    ),
    "database_unreachable": "không kết nối được tới cơ sở dữ liệu {url}: {reason}",
    "database_refused": "cơ sở dữ liệu {url} từ chối các hàm SQL: {reason}",
    "database_refused.read": "cơ sở dữ liệu {url} từ chối một truy vấn của --check-index: {reason}",
    "index_check": "{field}: không đọc được khóa chính của {value} trong {url}",
    "pgstattuple": "không dùng được pgstatindex trong cơ sở dữ liệu {url}",
    "index_check.name": (
        "{field} {value} không phải là tên bảng mà PostgreSQL đọc được: hãy viết TABLE hoặc"
        ' SCHEMA.TABLE, đặt "ngoặc kép" quanh tên có chữ hoa hay dấu cách'
    ),
    "index_check.no_table": (
        "{field}: không có bảng {value} trong {url} (tên không kèm schema được tìm theo"
        " search_path)"
    ),
    "index_check.not_a_table": "{field}: {value} trong {url} là {kind}, không phải một bảng",
    "index_check.partitioned": (
        "{field}: {value} trong {url} là bảng phân vùng, chỉ mục khóa chính của nó không có"
        " trang riêng; hãy kiểm tra từng phân vùng"
    ),
    "index_check.no_primary_key": "{field}: bảng {value} trong {url} không có khóa chính",
    "index_check.not_btree": (
        "{field}: khóa chính của {value} trong {url} là chỉ mục {kind}; pgstatindex chỉ đọc"
        " chỉ mục B-tree"
    ),
    "pgstattuple.missing": (
        "phần mở rộng pgstattuple (có hàm pgstatindex để đọc chỉ mục) chưa được cài trong cơ"
        " sở dữ liệu {url}: hãy chạy CREATE EXTENSION pgstattuple; ở đó bằng một vai trò được"
        " phép tạo nó (superuser: đây không phải phần mở rộng tin cậy), rồi chạy lại lệnh này"
    ),
    "pgstattuple.privilege": (
        "vai trò này không được chạy pgstatindex trong cơ sở dữ liệu {url} ({detail}): hãy cấp"
        " cho nó pg_stat_scan_tables (GRANT pg_stat_scan_tables TO vai trò;) hoặc dùng superuser"
    ),
    "bad_row": "hàng {row}: {reason}",
    "column_missing": "{file} không có cột {column}; các cột của nó là: {columns}",
    "file_unusable": "không dùng được tệp {file}: {reason}",
    "extra_missing": (
        "{feature} cần gói Python {package} nhưng gói này chưa được cài:"
        " pip install 'snowid[{extra}]'"
    ),
    "sql.header": (
        "Các hàm SQL để đọc ID Snowflake theo bố cục {layout}, do snowid {version} tạo ra."
        " Chạy lại bao nhiêu lần cũng được: các hàm chỉ được thay bằng đúng định nghĩa này."
    ),
    "sql.header.sqlite": (
        "View của bảng {table}, thêm thời điểm và các trường của ID Snowflake trong cột"
        " {column} (bố cục {layout}), do snowid {version} tạo ra. Chạy lại bao nhiêu lần"
        " cũng được: view chỉ được thay bằng đúng định nghĩa này."
    ),
    "sql.header.duckdb": (
        "Các macro DuckDB để đọc ID Snowflake theo bố cục {layout}, do snowid {version}"
        " tạo ra. Chạy lại bao nhiêu lần cũng được: các macro chỉ được thay bằng đúng"
        " định nghĩa này."
    ),
    "sql.applied": "đã cài {count} hàm SQL vào {url}: {names}",
    "sql.check.table": "bảng: {table}, khoảng {rows} hàng (ước lượng của bộ lập kế hoạch)",
    "sql.check.index": "khóa chính: {index}, {size}, {pages} trang lá",
    "sql.check.key": "khóa: {columns} ({type}), {kind}",
    "sql.check.kind.snowflake": "mã Snowflake",
    "sql.check.kind.integer": "số nguyên dưới 2^50 (một sequence)",
    "sql.check.kind.uuid7": "UUIDv7",
    "sql.check.kind.uuid": "UUID (phiên bản {version})",
    "sql.check.kind.other": "không phải số nguyên cũng không phải uuid",
    "sql.check.density": "mật độ trang lá: {density}, độ phân mảnh trang lá: {fragmentation}",
    "sql.check.verdict": (
        "giống trường hợp: {case} (docs/keys.md đo được mật độ trang lá {documented} % cho nó)"
    ),
    "sql.check.too_small": ("kết luận: quá nhỏ để nói ({pages} trang lá; cần ít nhất {min})"),
    "sql.check.no_case": "kết luận: docs/keys.md chưa đo loại khóa này",
    "sql.check.dense": "chỉ mục đang đầy đặn: không cần làm gì",
    "sql.check.case.one_writer": (
        "khóa được chèn theo thứ tự tăng dần, như một tiến trình ghi duy nhất tạo ra"
        " (snowid.next_id() trong một tiến trình, hoặc BIGSERIAL)"
    ),
    "sql.check.case.workers": (
        "nhiều tiến trình ghi, mỗi tiến trình một định danh, khóa của chúng xen kẽ nhau"
        " (8 tiến trình snowid.next_id())"
    ),
    "sql.check.case.client_blocks": (
        "các khối đệm của client (16 tiến trình snowid.client, khối 4.096 mã)"
    ),
    "sql.check.case.uuid7_many": "UUIDv7 từ nhiều tiến trình ghi cùng lúc (8 tiến trình)",
    "sql.check.case.uuid4": "UUID ngẫu nhiên (UUIDv4 từ 8 tiến trình)",
    "sql.check.options": 'những gì bạn có thể làm (docs/keys.md, "What an operator can do"):',
    "sql.check.option.identities": (
        "ít định danh hơn nhưng bận hơn cho mỗi bảng: một tiến trình ghi giữ chỉ mục gần 90 %"
    ),
    "sql.check.option.batch": (
        "lô nhỏ hơn cho client (Client(batch=128)) cho chỉ mục nhỏ hơn khoảng một phần năm"
        " trên PostgreSQL"
    ),
    "sql.check.option.reindex": (
        "{reindex} xếp lại chỉ mục theo fillfactor mà không chặn việc ghi; nên chạy định kỳ"
        " trên bảng lớn, lâu năm"
    ),
    "sql.check.option.fillfactor": (
        "hạ fillfactor không giúp gì ở đây: nó chỉ áp dụng cho trang được lấp từ mép phải và"
        " khi dựng lại, không cho các lần tách giữa trang do khóa xen kẽ gây ra"
    ),
    "sql_unknown_engine": (
        "{field} {value} không phải là hệ cơ sở dữ liệu mà snowid viết SQL cho; hãy chọn"
        " một trong {allowed}"
    ),
    "sql_table_required": (
        "SQLite cần {field}: SQLite không có hàm lưu sẵn, nên script là một view trên bảng"
        " và cột ID do bạn chỉ định (--table BẢNG --column CỘT)"
    ),
    "sql_name": "{field} {value} không dùng làm tên trong SQL được",
    "sql_name.layout": (
        "{field} {value} không dùng làm tên hàm SQL được: hãy đặt tên bố cục gồm chữ cái,"
        " chữ số, - và _, bắt đầu bằng chữ cái (name=… trong mô tả bố cục)"
    ),
    "sql_name.clash": (
        "{field}: trường {value} sẽ trùng tên với một hàm SQL (timestamp, parts,"
        " unix_ms, first_id_at, last_id_at); hãy đổi tên trường"
    ),
    "sql_name.length": (
        "{field}: tên hàm SQL {value} dài quá 63 ký tự, PostgreSQL sẽ cắt bớt; hãy dùng"
        " tên bố cục hoặc tên trường ngắn hơn"
    ),
    "sql_name.identifier": "{field} {value} không dùng làm tên bảng, cột hay view được",
    "sql_no_server": "không dùng được {field} {value}: không có máy chủ nào để cài vào",
    "sql_no_server.sqlite": (
        "không dùng được {field} {value}: SQLite không có máy chủ để cài vào; hãy chạy"
        " script ngay trong cơ sở dữ liệu của bạn (sqlite3 DATABASE < script.sql)"
    ),
    # --- snowid.client ---
    "field.url": "URL của dịch vụ",
    "field.token": "bearer token",
    "field.batch": "kích thước lô",
    "field.timeout": "thời gian chờ tính bằng giây (lớn hơn 0)",
    "field.retries": "số lần thử lại",
    "invalid_service_url": "không dùng được {field} {value}",
    "invalid_service_url.scheme": (
        "không dùng được {field} {value}: lược đồ phải là http:// hoặc https://"
    ),
    "invalid_service_url.host": (
        "không dùng được {field} {value}: không có tên máy chủ; hãy viết dạng http://HOST:PORT"
    ),
    "invalid_service_url.port": (
        "không dùng được {field} {value}: cổng không phải là số trong phạm vi 0..65535"
    ),
    "invalid_service_url.userinfo": (
        "không dùng được {field} {value}: URL chứa tên người dùng hoặc mật khẩu; hãy truyền"
        " bearer token qua token="
    ),
    "invalid_service_url.extra": (
        "không dùng được {field} {value}: URL không được có truy vấn (?…) hay phân đoạn (#…);"
        " chỉ ghi URL gốc"
    ),
    "invalid_token": (
        "không dùng được {field}: bearer token phải là ký tự ASCII in được, không có khoảng"
        " trắng và không rỗng (token không được hiển thị)"
    ),
    "service_error": "dịch vụ cấp ID {url} không trả về ID nào",
    "service_unreachable": (
        "không kết nối được dịch vụ cấp ID {url} sau {attempts} lần thử: {reason}"
    ),
    "service_timeout": (
        "dịch vụ cấp ID {url} không kết nối hoặc không trả lời trong {timeout} giây (không thử lại)"
    ),
    "service_refused": (
        "dịch vụ cấp ID {url} từ chối yêu cầu: HTTP {status} {service_code}: {service_message}"
    ),
    "service_auth": (
        "dịch vụ cấp ID {url} cần bearer token hợp lệ (HTTP {status} {service_code}):"
        " {service_message}"
    ),
    "service_unavailable": (
        "dịch vụ cấp ID {url} hiện không cấp được ID (HTTP {status} {service_code} ở cả"
        " {attempts} lần thử): {service_message}"
    ),
    "service_answer": "câu trả lời của dịch vụ cấp ID {url} không phải là một lô ID",
    "service_answer.status": (
        "câu trả lời của dịch vụ cấp ID {url} không phải là một lô ID: dòng trạng thái"
        " {detail} không phải HTTP/1.x"
    ),
    "service_answer.headers": (
        "câu trả lời của dịch vụ cấp ID {url} không phải là một lô ID: không đọc được phần"
        " đầu ({detail})"
    ),
    "service_answer.json": (
        "câu trả lời của dịch vụ cấp ID {url} không phải là một lô ID: đó không phải đối"
        ' tượng JSON {{"ids": [...]}}: {detail}'
    ),
    "service_answer.count": (
        "câu trả lời của dịch vụ cấp ID {url} có {detail} ID trong khi đã yêu cầu {count}"
    ),
    "service_answer.id": (
        "câu trả lời của dịch vụ cấp ID {url} không phải là một lô ID: {detail} không phải"
        " là ID (ID là chuỗi thập phân, 0..9223372036854775807)"
    ),
    "client_closed": "client của {url} đã đóng: không cấp thêm ID nào",
}
